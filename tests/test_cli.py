"""The CLI surface of INTERFACE.md: exit statuses, JSON Lines fields, help texts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from audit.cli import main
from conftest import AUDIT, SHARED, needs_shared

EDGE = SHARED / "cases" / "edge"


@needs_shared
def test_clean_file_exits_0() -> None:
    result = CliRunner().invoke(main, ["check", str(EDGE / "odd-chip-three-way.txt")])
    assert result.exit_code == 0, result.output
    assert "1 hand checked in 1 file: 0 violations, 0 warnings, 0 errors" in result.output


@needs_shared
def test_violation_exits_1_and_json_has_the_fields() -> None:
    result = CliRunner().invoke(main, ["check", str(EDGE / "reopen-short-not-reopened.txt"), "--format", "json"])
    assert result.exit_code == 1
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert [(r["hand"], r["rule"], r["player"]) for r in rows] == [("E1b", "RAISE_NOT_REOPENED", "Ana")]
    for key in ("file", "hand", "rule", "severity", "player", "street", "line", "message", "expected", "actual"):
        assert key in rows[0]
    assert rows[0]["line"] == 24
    assert rows[0]["message"] == ("Ana raised to 11, but the betting was not re-opened for Ana: the bet went up "
                                  "only 3 since Ana's bet of 4, less than the full raise of 4.")


@needs_shared
def test_fail_on_never_and_warning() -> None:
    path = str(EDGE / "reopen-short-not-reopened.txt")
    assert CliRunner().invoke(main, ["check", path, "--fail-on", "never"]).exit_code == 0
    assert CliRunner().invoke(main, ["check", path, "--fail-on", "warning"]).exit_code == 1


@needs_shared
def test_cannot_run_exits_2() -> None:
    runner = CliRunner()
    missing = runner.invoke(main, ["check", "no/such/file.txt"])
    assert missing.exit_code == 2 and "no such file or folder" in missing.output
    bad_profile = runner.invoke(main, ["check", str(EDGE), "--profile", "poker-night"])
    assert bad_profile.exit_code == 2 and "unknown profile 'poker-night'" in bad_profile.output
    bad_option = runner.invoke(main, ["check", str(EDGE), "--option", "draw-limit=7"])
    assert bad_option.exit_code == 2 and "cannot be '7'" in bad_option.output


def test_unknown_option_line_names_the_line(tmp_path: Path) -> None:
    log = tmp_path / "game.txt"
    log.write_text("Profile: qdan\nOption: jokers = wild\n\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["check", str(log)])
    assert result.exit_code == 2
    assert f"{log}:2: unknown option 'jokers'" in result.output


@needs_shared
def test_folder_and_stdin() -> None:
    result = CliRunner().invoke(main, ["check", str(EDGE), "--format", "json", "--fail-on", "never"])
    assert result.exit_code == 0
    text = (EDGE / "reopen-short-not-reopened.txt").read_text(encoding="utf-8")
    piped = subprocess.run([AUDIT, "check", "-", "--format", "json"], input=text, capture_output=True, text=True)
    assert piped.returncode == 1 and '"RAISE_NOT_REOPENED"' in piped.stdout


def test_python_m_audit_works() -> None:
    run = subprocess.run([sys.executable, "-m", "audit", "--help"], capture_output=True, text=True)
    assert run.returncode == 0 and "check" in run.stdout


def test_every_command_has_help() -> None:
    for name, command in main.commands.items():
        assert command.help and len(command.help) > 20, name
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{name} {param.name}"


def test_each_command_is_imported_from_its_module() -> None:
    """``COMMANDS`` (a command's name → its module, imported when it is asked for) names every command of every
    module of the package, and only those."""
    import importlib
    import pkgutil

    import audit.cli
    from audit.cli.main import COMMANDS

    found = {}
    for info in pkgutil.iter_modules(audit.cli.__path__):
        if info.name == "main":
            continue
        module = importlib.import_module(f"audit.cli.{info.name}")
        for command in getattr(module, "COMMANDS", []):
            found[command.name] = info.name
    assert found == COMMANDS
    assert {name: command.callback.__module__ for name, command in main.commands.items()} == \
        {name: f"audit.cli.{module}" for name, module in COMMANDS.items()}


@needs_shared
def test_check_imports_no_other_command() -> None:
    code = ("import sys; from audit.cli import main\n"
            "try:\n    main(['check', '--jobs', '1', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('audit.cli.') or m in ('babel', 'logging',"
            " 'socket', 'tempfile', 'difflib')))")
    run = subprocess.run([sys.executable, "-c", code, str(EDGE / "odd-chip-three-way.txt")], capture_output=True,
                         text=True)
    assert run.stdout.strip().splitlines()[-1] == str(['audit.cli.check', 'audit.cli.main', 'audit.cli.options',
                                                       'audit.cli.progress'])


@needs_shared
def test_check_imports_no_database_libraries() -> None:
    code = ("import sys; from audit.cli import main\n"
            "try:\n    main(['check', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('duckdb', 'polars', 'pyarrow') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", code, str(EDGE / "odd-chip-three-way.txt")], capture_output=True,
                         text=True)
    assert run.stdout.strip().splitlines()[-1] == "[]"


@needs_shared
def test_library_works_without_the_cli() -> None:
    from audit import load_profile, read_hands, replay

    hand = next(read_hands(str(EDGE / "reopen-short-not-reopened.txt")))
    result = replay(hand, load_profile("home-open"))
    assert [(f.rule, f.player) for f in result.findings] == [("RAISE_NOT_REOPENED", "Ana")]


@needs_shared
def test_program_exit_flushes_everything_and_runs_exit_handlers(tmp_path: Path) -> None:
    """``audit`` skips the interpreter's slow teardown (``run``): every line still reaches a pipe and a file, the
    exit status is the command's, what was registered to run at exit runs, and ``sys.exit("text")`` still says
    the text and exits 1."""
    corpus = tmp_path / "many.txt"
    block = (EDGE / "reopen-short-not-reopened.txt").read_text(encoding="utf-8").strip()
    corpus.write_text("\n\n".join([block] * 400) + "\n", encoding="utf-8")
    piped = subprocess.run([str(AUDIT), "check", str(corpus), "--format", "json", "--jobs", "1"],
                           capture_output=True, text=True)
    assert piped.returncode == 1, piped.stderr
    assert len(piped.stdout.splitlines()) == 400 and piped.stdout.endswith("}\n")
    out = tmp_path / "findings.jsonl"
    written = subprocess.run([str(AUDIT), "check", str(corpus), "--format", "json", "-o", str(out)],
                             capture_output=True, text=True)
    assert written.returncode == 1 and len(out.read_text(encoding="utf-8").splitlines()) == 400
    code = ("import atexit, sys\n"
            "atexit.register(lambda: print('exit handler ran', file=sys.stderr))\n"
            "from audit.cli import main, run\n"
            "main.add_command(__import__('click').command('say')(lambda: sys.exit('a message')))\n"
            "sys.argv = ['audit'] + sys.argv[1:]\n"
            "run()\n")
    handled = subprocess.run([sys.executable, "-c", code, "check", str(EDGE / "odd-chip-three-way.txt")],
                             capture_output=True, text=True)
    assert handled.returncode == 0 and "1 hand checked" in handled.stdout
    assert "exit handler ran" in handled.stderr
    said = subprocess.run([sys.executable, "-c", code, "say"], capture_output=True, text=True)
    assert said.returncode == 1 and "a message" in said.stderr and "exit handler ran" in said.stderr


def _walked(folder: str) -> list[str]:
    """The files a folder argument meant before ``expand_paths`` listed folders with ``scandir``: ``os.walk``,
    ``pathlib`` paths, in ``pathlib``'s order (the order and names scripts have seen)."""
    import os
    from fnmatch import fnmatchcase
    found = []
    for root, _, names in os.walk(folder):
        for name in names:
            if fnmatchcase(name, "*.txt") and (Path(root) / name).is_file():
                found.append(Path(root) / name)
    return [str(f) for f in sorted(found, key=lambda f: f.parts)]


def test_a_folder_means_the_same_files_in_the_same_order_as_before(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Nested folders, names that sort differently as strings and as paths, links to files and folders, broken
    links, other files, and the ways a folder can be written (``./``, a trailing slash, ``.``)."""
    from audit.read import expand_paths

    root = tmp_path / "logs"
    for rel in ["a.txt", "b/c.txt", "a-b/x.txt", "a/b.txt", "a/b/deep.txt", "z.TXT", ".txt", "notes.md",
                "b/e f.txt", "ä/ü.txt"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("Hand #1\n", encoding="utf-8")
    (root / "linked.txt").symlink_to(root / "a.txt")
    (root / "broken.txt").symlink_to(root / "missing.txt")
    (root / "folder-link").symlink_to(root / "b", target_is_directory=True)
    (root / "dir.txt").mkdir()
    monkeypatch.chdir(tmp_path)
    for arg in ["logs", "logs/", "./logs", "./logs/", str(root), "logs//b"]:
        assert expand_paths([arg]) == _walked(arg), arg
    monkeypatch.chdir(root)
    assert expand_paths(["."]) == _walked(".")
    assert "linked.txt" in expand_paths(["."]) and "broken.txt" not in expand_paths(["."])
    assert not any(p.startswith("folder-link") for p in expand_paths(["."]))
