"""Two copies of the code run on the same inputs, compared field by field: what a speed change must leave alone.

    .venv/bin/python bench/compare.py --before DIR [--after DIR] [--sessions N] [--mutants N] [--seed S]
                                      [--shared DIR] [--show N] [--keep] [--no-cli] [--one-at-a-time]

``--before`` and ``--after`` are source trees (``--after`` defaults to the tree holding this script), compiled or
not: each is run in child processes of its own with ``PYTHONPATH=<tree>``, so each imports its own ``audit``
(the compiled build where the tree has a current one: the header says which ran). The inputs are the same bytes
for both:

- every file under the after tree's ``fixtures/``, ``--shared``'s ``cases/`` and ``real-hands/`` (``--shared``
  defaults to ``../shared`` beside the after tree, else beside this script's tree);
- ``--sessions`` simulated sessions (default 10) of each profile that plays (``audit.simulate``, seed ``--seed``),
  a file each, written by the before tree's simulator;
- ``--mutants`` mutants (default 500) of those inputs: one to three blocks of an input (with its first block),
  with one to four lines dropped, doubled, swapped with another or altered (a number, a card, a word changed,
  the line cut short), from ``--seed``.

Each input is read, each block parsed (its model, every field: as ``tests/modeldump.py``, whatever the model's
classes), then audited under its own profile (no ``--profile``) and under each of the four (home-open, qdan,
stripped32, site): every audited block's findings (every field), the replay's settlement (the pots with their
awards and what was collected, what each player should have received and received, contributions, start and
end stacks, rake, points, what could not be checked), the explanation of each hand and session
(``audit.explain``'s record: its steps with stacks, bets, pots and what was legal, the verdict, the reasons; and
the text ``audit explain`` prints of them, in English, and in Spanish under the file's own profile) and,
under each of the four, the rows ``audit ingest`` would store (``audit.store.ingest.audit_file_rows``: the Arrow
tables built from ``audit/store/rows.py``'s values, row by row, each hand's rows apart). Unless ``--no-cli``, the
real command also runs in each tree over all the inputs but the mutants at once (the first mutant whose
``Option:`` line has a value no profile takes would stop it): ``audit check --format json --jobs 1`` under each
profile, the text output in English and in Spanish, and ``--jobs 2`` on the logs alone (the workers' path); its
standard output and standard error are compared as a diff of their lines, and its exit status. And ``audit
ingest`` of every input into a new database, in one process and with ``--workers 2``: its exit status, what it
says (less the time taken) and every row it stored in the data tables and ``files`` (less the time of the
ingest), in key order. A run that could not finish (exit status 2) is said even when both sides agree: it
compared less than it should.

The children write JSON Lines into a temporary folder; this process compares them input by input (a record
whose text differs is parsed and walked to the fields that differ). A mapping's keys are compared in their order
too (the order a page or a JSON object lists players in), a difference of order alone counted apart;
``--ignore-key-order`` leaves those out. It prints the counts compared (inputs,
blocks, audits, hands, findings, explanation steps, rows, command lines), the first ``--show`` differences (default
5) in full, and the wall time of each side and of the whole run; exit status 1 when anything differs (the folder
is then kept, with every difference in ``differences.txt``; ``--keep`` keeps it anyway), 2 when it could not run.
The two sides run at once (one core each); ``--one-at-a-time`` runs them in turn. With the defaults each side
takes about 70 CPU seconds on plain Python (each side's CPU time is printed, the library's records apart from the
commands' runs): about a minute and a half on two idle cores, five minutes and more on a crowded machine.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import difflib
import enum
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
OWN_TREE = HERE.parents[1]
PROFILES = ("home-open", "qdan", "stripped32", "site")
MUTANT = "mutant-"  # a mutant's file name: inputs/mutant-0001.txt
WORK_PREFIX = "audit-compare-"  # the temporary folder's name
OWN = "own"  # the variant with no profile given: each file's own Profile: lines, else home-open
SIMULATED = ("home-open", "qdan", "stripped32")  # the profiles the simulator plays (site logs are not house logs)
RESULT_FIELDS = ("profile", "session", "findings", "pots", "should_receive", "received", "contributions",
                 "start_stacks", "end_stacks", "dealt_in", "redeal", "pot_total", "rake", "points", "unjudged",
                 "unchecked")
"""What a replay gives (``audit.engine.HandResult``) past the hand itself, which is compared as its block."""
SHOWN_DIFF_LINES = 40  # of a command's output, in the report of one difference
SHOWN_FIELDS = 60  # of any other record
_INDEX = re.compile(r"\[\d+\]")


# ---------------------------------------------------------------------------------------------- plain values
def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON-able data, the same whatever class holds it (a named tuple, a dataclass, a compiled
    class, a dict subclass): type names kept for records, sets sorted, times as ISO text."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else repr(value)
    if depth > 60:
        return {"_deep": repr(value)[:200]}
    if isinstance(value, enum.Enum):
        return plain(value.value, depth + 1)
    if isinstance(value, (dt.datetime, dt.date, dt.time, dt.timedelta)):
        return {"_type": type(value).__name__, "iso": value.isoformat() if hasattr(value, "isoformat")
                else str(value)}
    if isinstance(value, bytes):
        return {"_type": "bytes", "hex": value.hex()}
    if isinstance(value, dict):
        return {_key(k): plain(v, depth + 1) for k, v in value.items()}
    if hasattr(value, "_asdict"):  # a named tuple (the model, a finding)
        out = {"_type": type(value).__name__}
        out.update((k, plain(v, depth + 1)) for k, v in value._asdict().items())
        return out
    if isinstance(value, (list, tuple)):
        return [plain(v, depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v, depth + 1) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {"_type": type(value).__name__}
        out.update((f.name, plain(getattr(value, f.name), depth + 1)) for f in dataclasses.fields(value))
        return out
    names = [n for n in dir(value) if not n.startswith("_")]
    attrs = {}
    for n in names:
        try:
            v = getattr(value, n)
        except Exception as exc:  # noqa: BLE001 - a property that raises is a value to compare too
            v = {"_raised": type(exc).__name__}
        if not callable(v):
            attrs[n] = v
    if attrs:
        out = {"_type": type(value).__name__}
        out.update((k, plain(v, depth + 1)) for k, v in attrs.items())
        return out
    return {"_type": type(value).__name__, "repr": repr(value)}


def _key(k: Any) -> str:
    return k if isinstance(k, str) else json.dumps(plain(k), sort_keys=True)


def raised(exc: BaseException) -> dict[str, Any]:
    """An exception as a value: its class and its words (an ``AuditError`` is an outcome like any other)."""
    return {"_raised": type(exc).__name__, "message": str(exc)}


# ---------------------------------------------------------------------------------------------- the child
class Dump:
    """A child's JSON Lines: one record per compared thing, ``[group, key, value]``, and the counts."""

    def __init__(self, out: Any) -> None:
        self.out = out
        self.counts = {"inputs": 0, "blocks": 0, "audits": 0, "audited": 0, "hands": 0, "findings": 0,
                       "explained": 0, "steps": 0, "rows": 0, "command lines": 0, "stored rows": 0}

    def put(self, group: int | str, key: str, value: Any) -> None:
        self.out.write(json.dumps([group, key, value], ensure_ascii=False) + "\n")  # keys in their order


def dump_tree(inputs: list[str], out_path: str, cli: bool) -> int:
    """What this process's ``audit`` makes of every input (``inputs``), into ``out_path``."""
    import audit
    from audit import _native

    with open(out_path, "w", encoding="utf-8") as out:
        dump = Dump(out)
        state = _native.compiled_state() if hasattr(_native, "compiled_state") else "?"
        dump.put("header", "code", {"audit": audit.__file__, "build": state})
        cpu = time.process_time()
        for i, path in enumerate(inputs):
            dump_input(dump, i, path)
        cpu = time.process_time() - cpu
        commands = _children_cpu()
        if cli:
            dump_commands(dump, inputs)
            dump_ingests(dump, inputs, out_path + ".store")
        commands = _children_cpu() - commands
        dump.put("summary", "counts", dump.counts)
        dump.put("timing", "cpu", {"library": cpu, "commands": commands})  # not compared: said
    return 0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def stage(dump: Dump, group: int, key: str, fn: Callable[[], Iterator[tuple[str, Any]]]) -> None:
    """Every ``(sub-key, value)`` ``fn`` yields, under ``key``; what it raises becomes the record ``key:raised``
    (the records before it kept), so that one side's crash is a difference, never the end of the run."""
    try:
        for sub, value in fn():
            dump.put(group, f"{key}:{sub}", value)
    except Exception as exc:  # noqa: BLE001 - compared as a value
        dump.put(group, f"{key}:raised", raised(exc))


def dump_input(dump: Dump, i: int, path: str) -> None:
    dump.counts["inputs"] += 1
    stage(dump, i, "blocks", lambda: blocks_of(dump, path))
    for variant in (OWN, *PROFILES):
        dump.counts["audits"] += 1
        stage(dump, i, f"{variant}:audit", lambda: audited_of(dump, path, variant))
        stage(dump, i, f"{variant}:explain", lambda: explained_of(dump, path, variant))
        if variant != OWN:  # ``audit ingest``'s default profile is home-open: the own variant's rows are its
            stage(dump, i, f"{variant}:rows", lambda: rows_of(dump, path, variant))


def blocks_of(dump: Dump, path: str) -> Iterator[tuple[str, Any]]:
    from audit.dialects.dispatch import parse_block
    from audit.read import read_blocks

    for n, block in enumerate(read_blocks(path)):
        dump.counts["blocks"] += 1
        raw = {"kind": block.kind, "lines": list(block.lines), "numbers": list(block.numbers),
               "too_long": block.too_long}
        try:
            model = plain(parse_block(block))
        except Exception as exc:  # noqa: BLE001
            model = raised(exc)
        yield str(n), {"raw": raw, "model": model}


def _profile(variant: str) -> Any:
    from audit.profile import load_profile

    return None if variant == OWN else load_profile(variant)


def audited_of(dump: Dump, path: str, variant: str) -> Iterator[tuple[str, Any]]:
    from audit.pipeline import audit_file

    for n, a in enumerate(audit_file(path, _profile(variant))):
        dump.counts["audited"] += 1
        dump.counts["findings"] += len(a.findings)
        result = a.result
        settled: dict[str, Any] | None = None
        if result is not None:
            dump.counts["hands"] += 1
            settled = {}
            for name in RESULT_FIELDS:
                try:
                    settled[name] = plain(getattr(result, name))
                except Exception as exc:  # noqa: BLE001
                    settled[name] = raised(exc)
        yield str(n), {"findings": plain(a.findings), "result": settled, "session": a.session,
                       "profile": a.profile, "failure": plain(a.failure),
                       "hand": None if a.hand is None else [a.hand.hand_id, a.hand.line]}


def explained_of(dump: Dump, path: str, variant: str) -> Iterator[tuple[str, Any]]:
    from audit.explain import explain_file, render_text

    items = []
    for n, e in enumerate(explain_file(path, _profile(variant))):
        items.append(e)
        dump.counts["explained"] += 1
        dump.counts["steps"] += len(getattr(e, "steps", ()))
        yield str(n), e.as_dict() if hasattr(e, "as_dict") else plain(e)
    # the words a host reads (and the order he reads them in); Spanish once, the English under every profile
    for lang in ("en", "es") if variant == OWN else ("en",):
        yield f"text {lang}", "".join(render_text(items, lang)).splitlines()


def rows_of(dump: Dump, path: str, variant: str) -> Iterator[tuple[str, Any]]:
    from audit.store.ingest import IngestJob, audit_file_rows

    got = audit_file_rows(IngestJob(path, variant))
    yield "file", {"sha256": got.sha256, "tables": sorted(got.tables)}
    for table in sorted(got.tables):
        frame = got.tables[table]
        yield f"{table}:schema", [f"{f.name} {f.type}" for f in frame.schema]
        seen: dict[Any, int] = {}
        for row in frame.to_pylist():
            dump.counts["rows"] += 1
            hand = row.get("hand_key")  # keyed by hand: a row more or less in one hand moves no other hand's
            n = seen[hand] = seen.get(hand, -1) + 1
            yield f"{table}:{hand}:{n}", plain(row)


def dump_commands(dump: Dump, inputs: list[str]) -> None:
    """The real ``audit check`` over every input at once: JSON under each profile, text in English and Spanish."""
    runs: list[tuple[str, list[str]]] = [
        (f"json {v}", ["--jobs", "1", "--format", "json"] + ([] if v == OWN else ["--profile", v]))
        for v in (OWN, *PROFILES)]
    runs += [(f"text {lang}", ["--jobs", "1", "--lang", lang]) for lang in ("en", "es")]
    # the workers' path (long files in parts, small ones several to a task), on the logs alone
    runs.append(("json --jobs 2", ["--jobs", "2", "--format", "json"]))
    # not the mutants: the first whose Option: line has a value no profile takes stops the command (exit 2), and
    # the library's records above compare them one by one
    files = [p for p in inputs if not is_mutant(p)]
    logs = [p for p in files if p.endswith((".txt", ".xml"))]
    for name, options in runs:
        done = subprocess.run([sys.executable, "-m", "audit", "check", "--fail-on", "never", "-q", *options,
                               *(logs if "--jobs 2" in name else files)], capture_output=True,
                              env=os.environ.copy())
        for stream, data in (("stdout", done.stdout), ("stderr", done.stderr)):
            lines = data.decode("utf-8", "backslashreplace").splitlines()
            dump.counts["command lines"] += len(lines)
            dump.put("check", f"{name}:{stream}", lines)
        dump.put("check", f"{name}:exit", done.returncode)


_TIMING = re.compile(r" in [\d.,]+ s, [\d.,]+ hands/s")


def dump_ingests(dump: Dump, inputs: list[str], folder: str) -> None:
    """The real ``audit ingest`` of every input into a new database, in this process and with two workers (the
    workers' path: rows spilled and handed over), and every stored row of the data tables and ``files`` (but the
    time it was ingested), in key order (two workers store files in the order they finish)."""
    import duckdb

    from audit.store.schema import DATA_TABLES

    os.makedirs(folder)
    for workers in ("1", "2"):
        name = f"ingest --workers {workers}"
        db = f"workers-{workers}.duckdb"  # relative, in a folder of this side's: the words said match
        done = subprocess.run([sys.executable, "-m", "audit", "ingest", "--db", db, "--workers", workers,
                               *inputs], capture_output=True, env=os.environ.copy(), cwd=folder)
        said = [_TIMING.sub(" in … s", line) for line in done.stderr.decode("utf-8", "backslashreplace").splitlines()]
        dump.counts["command lines"] += len(said)
        dump.put("ingest", f"{name}:stderr", said)
        dump.put("ingest", f"{name}:exit", done.returncode)
        if not os.path.exists(os.path.join(folder, db)):
            continue
        con = duckdb.connect(os.path.join(folder, db), read_only=True)
        try:
            for table in ("files", *DATA_TABLES):
                query = f"SELECT * EXCLUDE (ingested_at) FROM {table}" if table == "files" else f"SELECT * FROM {table}"
                cursor = con.execute(query + " ORDER BY ALL")
                names = [d[0] for d in cursor.description]
                seen: dict[Any, int] = {}
                for row in cursor.fetchall():
                    record = dict(zip(names, row))
                    dump.counts["stored rows"] += 1
                    hand = record.get("hand_key", record.get("file_sha"))
                    n = seen[hand] = seen.get(hand, -1) + 1
                    dump.put("ingest", f"{name}:{table}:{hand}:{n}", plain(record))
        finally:
            con.close()


# ---------------------------------------------------------------------------------------------- the inputs
def is_mutant(path: str) -> bool:
    """Whether ``path`` is a mutant this script wrote (``inputs/mutant-0001.txt`` in its temporary folder)."""
    p = Path(path)
    return p.name.startswith(MUTANT) and p.parent.name == "inputs" and p.parent.parent.name.startswith(WORK_PREFIX)


_NUMBER = re.compile(r"\d+")
_CARD = re.compile(r"(?<=[\[ ])(?:10|[2-9TJQKA])[cdhs]")
_WORD = re.compile(r"[A-Za-z]{3,}")
WORDS = ("folds", "checks", "calls", "bets", "raises", "shows", "mucks", "collected", "discards", "pat")


def decode(data: bytes) -> tuple[str, str]:
    """A log's text and the encoding to write its mutants in (UTF-16 by its mark, else UTF-8 kept byte for byte)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "surrogatepass"), "utf-16"
    return data.decode("utf-8", "surrogateescape"), "utf-8"


def mutant(data: bytes, rnd: random.Random) -> tuple[bytes, str]:
    """One to three blocks of a log (after its first, which often says the session and profile), one to four
    lines of them dropped, doubled, swapped or altered; and what was done, in words."""
    text, encoding = decode(data)
    chunks = [c for c in re.split(r"\r?\n[ \t]*\r?\n", text) if c.strip()] or [text]
    start = rnd.randrange(len(chunks))
    picked = chunks[start:start + rnd.choice((1, 1, 2, 3))]
    if start:
        picked = [chunks[0]] + picked
    lines = "\n\n".join(picked).split("\n")
    done: list[str] = [f"blocks {start}+{len(picked) - (1 if start else 0)}"]
    for _ in range(rnd.choice((1, 1, 2, 3, 4))):
        i = rnd.randrange(len(lines))
        op = rnd.randrange(7)
        if op == 0 and len(lines) > 1:
            del lines[i]
            done.append(f"line {i + 1} dropped")
        elif op == 1:
            lines.insert(i, lines[i])
            done.append(f"line {i + 1} doubled")
        elif op == 2:
            j = rnd.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            done.append(f"lines {i + 1} and {j + 1} swapped")
        elif op == 3 and _NUMBER.search(lines[i]):
            m = rnd.choice(list(_NUMBER.finditer(lines[i])))
            new = str(rnd.choice((0, 1, int(m.group()) + 1, max(0, int(m.group()) - 1), int(m.group()) * 10)))
            lines[i] = lines[i][:m.start()] + new + lines[i][m.end():]
            done.append(f"line {i + 1}: {m.group()} -> {new}")
        elif op == 4 and _CARD.search(lines[i]):
            m = rnd.choice(list(_CARD.finditer(lines[i])))
            new = rnd.choice("23456789TJQKA") + rnd.choice("cdhs")
            lines[i] = lines[i][:m.start()] + new + lines[i][m.end():]
            done.append(f"line {i + 1}: card {m.group()} -> {new}")
        elif op == 5 and _WORD.search(lines[i]):
            m = rnd.choice(list(_WORD.finditer(lines[i])))
            new = rnd.choice(WORDS)
            lines[i] = lines[i][:m.start()] + new + lines[i][m.end():]
            done.append(f"line {i + 1}: {m.group()!r} -> {new!r}")
        else:
            cut = rnd.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:cut]
            done.append(f"line {i + 1} cut at {cut}")
    out = "\n".join(lines) + "\n"
    return out.encode(encoding, "surrogatepass" if encoding == "utf-16" else "surrogateescape"), "; ".join(done)


def simulate_into(folder: str, sessions: int, seed: int) -> int:
    """(In a child of the before tree.) ``sessions`` simulated sessions of each profile that plays, a file each."""
    from audit.simulate import iter_sessions

    n = 0
    for profile in SIMULATED:
        for k, text in enumerate(iter_sessions(profile, sessions, seed)):
            Path(folder, f"sim-{profile}-{k + 1:03d}.txt").write_text(text, encoding="utf-8", newline="\n")
            n += 1
    return n


def gather_inputs(work: Path, before: Path, after: Path, shared: Path, sessions: int, mutants: int,
                  seed: int) -> tuple[list[str], dict[str, str]]:
    """Every input's path, and for each generated one where it came from."""
    found: list[Path] = []
    for folder in (after / "fixtures", shared / "cases", shared / "real-hands"):
        if not folder.is_dir():
            raise SystemExit(f"compare: no folder {folder} (the inputs)")
        found.extend(sorted(p for p in folder.rglob("*") if p.is_file()))
    made = work / "inputs"
    made.mkdir()
    origin: dict[str, str] = {}
    if sessions:
        run_child(before, ["--simulate", str(made), "--sessions", str(sessions), "--seed", str(seed)])
        for p in sorted(made.glob("sim-*.txt")):
            found.append(p)
            origin[str(p)] = f"simulated by {before}'s audit.simulate, seed {seed}"
    rnd = random.Random(seed)
    sources = list(found)
    for k in range(mutants):
        src = rnd.choice(sources)
        data, what = mutant(src.read_bytes(), rnd)
        p = made / f"{MUTANT}{k + 1:04d}{src.suffix if src.suffix in ('.txt', '.xml') else '.txt'}"
        p.write_bytes(data)
        found.append(p)
        origin[str(p)] = f"mutant of {src}: {what}"
    return [str(p) for p in found], origin


# ---------------------------------------------------------------------------------------------- the parent
def child_env(tree: Path) -> dict[str, str]:
    """A child's environment: ``tree``'s code first, and the same string hashes on both sides (a set's order, where
    the output shows it, cannot differ by chance)."""
    env = os.environ.copy()
    env["PYTHONPATH"] = str(tree)
    env["PYTHONHASHSEED"] = "0"
    return env


def child_command(args: list[str]) -> list[str]:
    return [sys.executable, str(HERE), *args]


def run_child(tree: Path, args: list[str]) -> None:
    done = subprocess.run(child_command(args), env=child_env(tree), cwd=str(tree))
    if done.returncode != 0:
        raise SystemExit(f"compare: the child of {tree} failed (exit status {done.returncode}): {' '.join(args)}")


def groups(path: str) -> Iterator[tuple[Any, dict[str, str]]]:
    """A child's records, one group (an input, the commands) at a time: key -> the record's text."""
    current: Any = None
    records: dict[str, str] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            group, key, _ = json.loads(line)  # the value is parsed again only when it differs
            if group != current and records:
                yield current, records
                records = {}
            current = group
            records[key] = line
    if records:
        yield current, records


def differing(a: Any, b: Any, path: str = "", out: list[tuple[str, Any, Any]] | None = None,
              most: int = 20) -> list[tuple[str, Any, Any]]:
    """The fields where ``a`` and ``b`` differ: (path, before, after), at most ``most``."""
    out = [] if out is None else out
    if len(out) >= most:
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        before = len(out)
        for k in list(a) + [k for k in b if k not in a]:
            if k not in b:
                out.append((f"{path}.{k}", a[k], "<absent>"))
            elif k not in a:
                out.append((f"{path}.{k}", "<absent>", b[k]))
            elif json.dumps(a[k]) != json.dumps(b[k]):
                differing(a[k], b[k], f"{path}.{k}", out, most)
            if len(out) >= most:
                break
        if len(out) == before and list(a) != list(b):
            out.append((f"{path or '.'} (the order of its keys)", list(a), list(b)))
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if json.dumps(x) != json.dumps(y):
                differing(x, y, f"{path}[{i}]", out, most)
            if len(out) >= most:
                break
    elif a != b or type(a) is not type(b):  # 1 and 1.0 are equal in Python, not in the output
        out.append((path or ".", a, b))
    return out


def same_but_order(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` (parsed JSON) hold the same values of the same types, a mapping's keys in any order."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


class Tally:
    """What differs: records by kind (``blocks``, ``qdan:explain``, ``check json own:stdout`` …) and inputs."""

    def __init__(self) -> None:
        self.records = 0
        self.kinds: dict[str, int] = {}
        self.inputs: set[str] = set()

    def add(self, where: str, key: str, order_only: bool = False) -> None:
        self.records += 1
        parts = key.split(":")
        kind = parts[0] if parts[0] == "blocks" else ":".join(parts[:2])
        if order_only:
            kind += " (the order of a mapping's keys only)"
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        self.inputs.add(where)


def described(va: Any, vb: Any) -> list[str]:
    """The report's lines for one differing record: a command's output as a diff of its lines, anything else
    field by field."""
    if (isinstance(va, list) and isinstance(vb, list) and all(isinstance(x, str) for x in va + vb)):
        diff = list(difflib.unified_diff(va, vb, "before", "after", n=1, lineterm=""))
        return [f"  {line}" for line in diff[:SHOWN_DIFF_LINES]] + (
            [f"  … {len(diff) - SHOWN_DIFF_LINES:,} more lines of the diff"] if len(diff) > SHOWN_DIFF_LINES else [])
    out: list[str] = []
    fields = differing(va, vb, most=SHOWN_FIELDS)
    i = 0
    while i < len(fields):  # the same change at the next places of a list (a pot wrong at every step) said once
        field, x, y = fields[i]
        j = i + 1
        while (j < len(fields) and fields[j][1:] == (x, y)
               and _INDEX.sub("[]", fields[j][0]) == _INDEX.sub("[]", field)):
            j += 1
        more = f" (and the same at {j - i - 1} more places, to {fields[j - 1][0]})" if j - i > 1 else ""
        out.append(f"  {field}{more}\n    before: {json.dumps(x, ensure_ascii=False)}\n"
                   f"    after:  {json.dumps(y, ensure_ascii=False)}")
        i = j
    if len(fields) >= SHOWN_FIELDS:
        out.append(f"  … (the first {SHOWN_FIELDS} fields that differ)")
    return out


def command_failures(records: dict[str, str]) -> list[str]:
    """The runs of ``audit check`` and ``audit ingest`` that could not finish (exit status 2), with their last
    words: the same on both sides is no difference, but a run that stops early compares less than it should."""
    out: list[str] = []
    for key, line in records.items():
        if key.endswith(":exit") and json.loads(line)[2] not in (0, 1):
            run = key[:-len(":exit")]
            said = json.loads(records.get(f"{run}:stderr", '[0, 0, []]'))[2]
            out.append(f"{run if run.startswith('ingest') else f'audit check ({run})'} exited {json.loads(line)[2]} on the before side: "
                       f"{said[-1] if said else '(nothing said)'}")
    return out


def compare(before_out: str, after_out: str, inputs: list[str], origin: dict[str, str], report: Any,
            failed: list[str], ignore_key_order: bool = False) -> tuple[Tally, dict[str, Any], dict[str, Any]]:
    """Compare the two children's records input by input, writing every difference to ``report``: what differs,
    the before side's counts and both headers (``failed``: the commands that could not finish, added to)."""
    tally = Tally()
    counts: dict[str, Any] = {}
    headers: dict[str, Any] = {}
    a_iter, b_iter = groups(before_out), groups(after_out)
    for (ga, ra), (gb, rb) in zip(a_iter, b_iter):
        if ga != gb:
            report.write(f"\n=== the two sides' records are out of step: {ga!r} against {gb!r}\n")
            tally.add(str(ga), "out of step")
            return tally, counts, headers
        if ga in ("header", "timing"):  # which code ran, and its CPU time: said, not compared
            for side, records in (("before", ra), ("after", rb)):
                for key, line in records.items():
                    headers.setdefault(side, {})[key] = json.loads(line)[2]
            continue
        if ga == "summary":
            counts = json.loads(ra["counts"])[2]
        if ga in ("check", "ingest"):
            failed.extend(command_failures(ra))
        where = inputs[ga] if isinstance(ga, int) else str(ga)
        for key in list(ra) + [k for k in rb if k not in ra]:
            la, lb = ra.get(key), rb.get(key)
            if la == lb:
                continue
            va = json.loads(la)[2] if la is not None else "<no such record>"
            vb = json.loads(lb)[2] if lb is not None else "<no such record>"
            order_only = same_but_order(va, vb)
            if order_only and ignore_key_order:
                continue
            tally.add(where, key if isinstance(ga, int) or key.startswith(str(ga)) else f"{ga} {key}", order_only)
            report.write(f"\n=== {where} | {key}\n")
            if where in origin:
                report.write(f"    ({origin[where]})\n")
            report.write("\n".join(described(va, vb)) + "\n")
    rest = [g for g, _ in a_iter] + [g for g, _ in b_iter]
    if rest:
        report.write(f"\n=== one side has records the other has not, from {rest[0]!r}\n")
        tally.add(str(rest[0]), "unmatched")
    return tally, counts, headers


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, help="the code to compare against (a source tree)")
    ap.add_argument("--after", type=Path, default=OWN_TREE, help="the code compared (default: this script's tree)")
    ap.add_argument("--sessions", type=int, default=10, help="simulated sessions of each profile (default 10)")
    ap.add_argument("--mutants", type=int, default=500, help="mutated inputs (default 500)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the simulated sessions and the mutants")
    ap.add_argument("--shared", type=Path, default=None, help="the shared contract folder (default ../shared)")
    ap.add_argument("--show", type=int, default=5, help="differences printed in full (default 5)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (kept anyway on a difference)")
    ap.add_argument("--no-cli", action="store_true", help="leave out the runs of the real audit check command")
    ap.add_argument("--one-at-a-time", action="store_true", help="run the two sides in turn, not at once")
    ap.add_argument("--ignore-key-order", action="store_true",
                    help="a mapping whose keys come in another order (the same keys and values) is no difference")
    # the children's modes (this script run again, with PYTHONPATH set to one tree)
    ap.add_argument("--dump", metavar="OUT", help=argparse.SUPPRESS)
    ap.add_argument("--inputs", metavar="LIST", help=argparse.SUPPRESS)
    ap.add_argument("--cli", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--simulate", metavar="DIR", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.dump:
        inputs = json.loads(Path(args.inputs).read_text(encoding="utf-8"))
        return dump_tree(inputs, args.dump, args.cli)
    if args.simulate:
        simulate_into(args.simulate, args.sessions, args.seed)
        return 0
    if args.before is None:
        ap.error("--before DIR is required")
    before, after = args.before.resolve(), args.after.resolve()
    for tree in (before, after):
        if not (tree / "audit" / "__init__.py").is_file():
            print(f"compare: {tree} is not a source tree of audit (no audit/__init__.py)", file=sys.stderr)
            return 2
    shared = args.shared or next((p for p in (after.parent / "shared", OWN_TREE.parent / "shared") if p.is_dir()),
                                 after.parent / "shared")
    start = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix=WORK_PREFIX))
    inputs, origin = gather_inputs(work, before, after, shared.resolve(), args.sessions, args.mutants, args.seed)
    listing = work / "inputs.json"
    listing.write_text(json.dumps(inputs), encoding="utf-8")
    outs = {side: str(work / f"{side}.jsonl") for side in ("before", "after")}
    took: dict[str, float] = {}
    procs: dict[str, tuple[subprocess.Popen[bytes], float]] = {}
    for side, tree in (("before", before), ("after", after)):
        cmd = child_command(["--dump", outs[side], "--inputs", str(listing)] + ([] if args.no_cli else ["--cli"]))
        procs[side] = (subprocess.Popen(cmd, env=child_env(tree), cwd=str(work)), time.monotonic())
        if args.one_at_a_time:
            procs[side][0].wait()
            took[side] = time.monotonic() - procs[side][1]
    for side, (proc, began) in procs.items():
        proc.wait()  # both, even when the first failed: no child left running
        took.setdefault(side, time.monotonic() - began)
    for side, (proc, _) in procs.items():
        if proc.returncode != 0:
            print(f"compare: the {side} side failed (exit status {proc.returncode}; its traceback above, its records "
                  f"so far in {outs[side]})", file=sys.stderr)
            return 2
    report_path = work / "differences.txt"
    with open(report_path, "w", encoding="utf-8") as report:
        failed: list[str] = []
        tally, counts, headers = compare(outs["before"], outs["after"], inputs, origin, report, failed,
                                         args.ignore_key_order)
    n_diff = tally.records
    elapsed = time.monotonic() - start
    for side in ("before", "after"):
        code, cpu = headers.get(side, {}).get("code", {}), headers.get(side, {}).get("cpu", {})
        print(f"{side}: {code.get('audit', '?')} ({code.get('build', '?')} build): {took[side]:,.1f} s, CPU "
              f"{cpu.get('library', 0):,.1f} s in the library's records and {cpu.get('commands', 0):,.1f} s in "
              f"the commands")
    generated = sum(1 for p in inputs if p in origin)
    print(f"compared: {counts.get('inputs', 0):,} inputs ({len(inputs) - generated:,} files, "
          f"{args.sessions * len(SIMULATED) if args.sessions else 0:,} simulated sessions, {args.mutants:,} "
          f"mutants, seed {args.seed}); {counts.get('blocks', 0):,} blocks parsed; {counts.get('audits', 0):,} "
          f"audits (each input under its own profile and the four) giving {counts.get('audited', 0):,} audited "
          f"blocks, {counts.get('hands', 0):,} hands replayed, {counts.get('findings', 0):,} findings; "
          f"{counts.get('explained', 0):,} explanations with {counts.get('steps', 0):,} steps; "
          f"{counts.get('rows', 0):,} rows for the store; {counts.get('command lines', 0):,} lines said by audit "
          f"check and ingest, {counts.get('stored rows', 0):,} rows they stored")
    for line in failed:
        print(f"note: {line}")
    if n_diff:
        sections = report_path.read_text(encoding="utf-8").split("\n=== ")[1:]
        # the first difference of each of the first inputs: one input's are often the same under every profile
        firsts: dict[str, str] = {}
        for section in sections:
            firsts.setdefault(section.split(" | ", 1)[0], section)
        shown = list(firsts.values())[:args.show]
        if len(shown) < args.show:
            taken = {id(s) for s in shown}
            shown += [s for s in sections if id(s) not in taken][:args.show - len(shown)]
        kinds = ", ".join(f"{k} {n:,}" for k, n in sorted(tally.kinds.items(), key=lambda kv: -kv[1]))
        print(f"\n{n_diff:,} records differ, in {len(tally.inputs):,} inputs ({kinds}); the first of "
              f"{len(shown)} of them:")
        print("".join("\n=== " + s.rstrip() for s in shown))
        print(f"\nevery difference: {report_path} (the inputs and both sides' records beside it)")
    else:
        print("no difference")
    print(f"wall time: {elapsed:,.1f} s")
    if not n_diff and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    elif not n_diff:
        print(f"kept: {work}")
    return 1 if n_diff else 0


if __name__ == "__main__":
    sys.exit(main())
