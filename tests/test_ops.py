"""Running it as an operator does: a bare clone's tests, the make targets' databases, the wheel build."""

from __future__ import annotations

import errno
import http.client
import logging
import os
import shlex
import shutil
import signal
import subprocess
import socket
import sys
import types
from pathlib import Path

import duckdb
import pytest

from audit.read import expand_paths
from conftest import AUDIT, ROOT


def bare_clone(tmp_path: Path) -> Path:
    """A copy of the checkout's tests that need ../shared (and their helpers), with no ``shared`` beside it."""
    clone = tmp_path / "clone"
    (clone / "tests").mkdir(parents=True)
    for name in ("conftest.py", "casejudge.py", "test_cases.py", "test_cli.py"):
        shutil.copy(ROOT / "tests" / name, clone / "tests" / name)
    assert not (clone.parent / "shared").exists()
    return clone


def run_pytest(clone: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "AUDIT_REQUIRE_SHARED"}
    environ.update(PYTHONPATH=str(ROOT), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", **env)  # no plugin: a quick start
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                           "tests/test_cases.py::test_there_are_shared_cases",
                           "tests/test_cli.py::test_clean_file_exits_0", "tests/test_cli.py::test_unknown_option_line_names_the_line"],
                          cwd=clone, capture_output=True, text=True, env=environ, timeout=120)


def test_a_bare_clone_skips_the_tests_that_need_shared_with_one_reason(tmp_path: Path) -> None:
    clone = bare_clone(tmp_path)
    run = run_pytest(clone)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 skipped" in run.stdout, run.stdout
    reasons = {line.split(": ", 1)[1] for line in run.stdout.splitlines() if line.startswith("SKIPPED")}
    assert reasons == {f"needs the shared contract folder beside the checkout, missing here: {tmp_path / 'shared'}"}


def test_ci_fails_where_those_tests_would_skip(tmp_path: Path) -> None:
    run = run_pytest(bare_clone(tmp_path), AUDIT_REQUIRE_SHARED="1")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "2 errors" in run.stdout and "AUDIT_REQUIRE_SHARED is set" in run.stdout, run.stdout
    assert "AUDIT_REQUIRE_SHARED=1" in (ROOT / ".ci" / "run").read_text()


# ------------------------------------------------------------------------------ make demo, make serve: databases
def script_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "AUDIT": AUDIT, "PYTHON": sys.executable, "PYTHONPATH": str(ROOT), **extra}


def demo(out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(ROOT / "bench" / "demo.sh")], capture_output=True, text=True, timeout=300,
                          env=script_env(DEMO_OUT=str(out)))


DEMO_LOGS = len(expand_paths([str(ROOT / "fixtures" / "demo")]))  # the logs `make demo` and `make serve` store


def stored_files(db: Path) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return int(con.execute("SELECT count(*) FROM files").fetchone()[0])  # type: ignore[index]
    finally:
        con.close()


@pytest.mark.slow  # the whole demo, twice
def test_make_demo_remakes_only_its_own_database(tmp_path: Path) -> None:
    out = tmp_path / "demo-out"
    first = demo(out)
    assert first.returncode == 0 and "left as it is" not in first.stdout, first.stdout + first.stderr
    db = out / "demo.duckdb"
    assert stored_files(db) == DEMO_LOGS
    token = subprocess.run([AUDIT, "token", "add", "north", "--db", str(db)], capture_output=True, text=True)
    assert token.returncode == 0, token.stderr
    second = demo(out)
    assert second.returncode == 0 and f"{db}: it holds tokens of the service" in second.stderr, second.stderr
    assert "left as it is" in second.stdout
    listed = subprocess.run([AUDIT, "token", "list", "--db", str(db)], capture_output=True, text=True)
    assert " north " in listed.stdout, listed.stdout + listed.stderr
    [other] = [p for p in out.glob("demo-*.duckdb")]
    assert stored_files(other) == DEMO_LOGS
    # The demo's own file is remade only while no program has it open.
    check = [sys.executable, str(ROOT / "scripts" / "demo_db.py"), str(other), str(ROOT / "fixtures" / "demo")]
    assert subprocess.run(check, env=script_env()).returncode == 0
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys; c = duckdb.connect(sys.argv[1]); "
                               "print('open', flush=True); sys.stdin.read()", str(other)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        held = subprocess.run(check, env=script_env(), capture_output=True, text=True)
        assert held.returncode == 1 and "cannot be opened on its own" in held.stderr, held.stderr
    finally:
        holder.communicate("", timeout=30)
    # Empty tables of the service's (as `audit token add` then `revoke` leave them) lose nothing; a row of anyone's
    # own in a table the demo does not know keeps the file.
    con = duckdb.connect(str(other))
    try:
        con.execute("CREATE TABLE tokens (x INTEGER); CREATE TABLE upload_parts (x INTEGER)")
    finally:
        con.close()
    assert subprocess.run(check, env=script_env()).returncode == 0
    con = duckdb.connect(str(other))
    try:
        con.execute("CREATE TABLE notes (x INTEGER); INSERT INTO notes VALUES (1)")
    finally:
        con.close()
    kept = subprocess.run(check, env=script_env(), capture_output=True, text=True)
    assert kept.returncode == 1 and "it holds rows of its own in 'notes'" in kept.stderr, kept.stderr


def start_script(args: list[str], env: dict[str, str], log: Path) -> tuple[subprocess.Popen[str], int]:
    """A script that ends in ``audit serve``: the process and its port, once it prints where it listens."""
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=open(log, "w"), text=True, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert "http://" in line, (line, log.read_text())
    return proc, int(line.split("http://127.0.0.1:")[1].split("/")[0])


def healthz(port: int) -> bytes:
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        con.request("GET", "/healthz")
        return con.getresponse().read()
    finally:
        con.close()


@pytest.mark.slow  # two real servers started by the script
def test_make_serve_keeps_its_database_and_takes_a_port(tmp_path: Path) -> None:
    db = tmp_path / "serve-out" / "club.duckdb"
    env = script_env(DB=str(db), PORT="0")
    for run in range(2):
        proc, port = start_script(["bash", str(ROOT / "scripts" / "serve.sh")], env, tmp_path / "serve.log")
        try:
            assert healthz(port) == b'{"status":"ok"}'
        finally:
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(60) == 0
        if run == 0:
            assert stored_files(db) == DEMO_LOGS  # seeded with the demo logs the first time
            made = subprocess.run([AUDIT, "token", "add", "north", "--db", str(db)], capture_output=True, text=True)
            assert made.returncode == 0, made.stderr
    listed = subprocess.run([AUDIT, "token", "list", "--db", str(db)], capture_output=True, text=True)
    assert " north " in listed.stdout and stored_files(db) == DEMO_LOGS
    dry = subprocess.run(["make", "-n", "serve", "PORT=8080"], cwd=ROOT, capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    assert "PORT='8080'" in dry.stdout and "DB='serve-out/club.duckdb'" in dry.stdout and "rm " not in dry.stdout


# ------------------------------------------------------------------------------------ audit serve on a busy port
def test_serve_on_a_taken_port_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        run = subprocess.run([AUDIT, "serve", "--db", str(tmp_path / "club.duckdb"), "--port", str(port)],
                             capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    assert run.stderr.splitlines() == [f"audit: cannot listen on 127.0.0.1:{port}: address already in use (another "
                                       "program listens there: stop it, or choose another with --port)"]
    assert not (tmp_path / "club.duckdb").exists()  # refused before the database was opened


def test_make_serve_on_a_taken_port_names_PORT(tmp_path: Path) -> None:
    """`make serve` is started with make's words, so a busy port is said in them: PORT=, not --port."""
    db = tmp_path / "serve-out" / "club.duckdb"
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        run = subprocess.run(["bash", str(ROOT / "scripts" / "serve.sh")], env=script_env(DB=str(db), PORT=str(port)),
                             capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    assert run.stderr.splitlines() == [f"audit: 127.0.0.1:{port} is in use by another program: stop it, or choose "
                                       f"another port: make serve PORT={port + 1}"]
    assert not db.parent.exists()  # said before the demo database was made


def test_a_port_taken_after_the_check_is_the_same_line(caplog: pytest.LogCaptureFixture) -> None:
    """uvicorn's own failure to bind (it logs the error and exits 3) becomes the one line and exit 2."""
    from audit.cli.serve import run_listening
    from audit.errors import AuditError

    def uvicorn_failing(settings: object) -> None:
        logging.getLogger("uvicorn.error").error(OSError(errno.EADDRINUSE, "error while attempting to bind on "
                                                         "address ('127.0.0.1', 8000): address already in use"))
        sys.exit(3)

    settings = types.SimpleNamespace(host="127.0.0.1", port=8000)
    with pytest.raises(AuditError, match=r"^cannot listen on 127.0.0.1:8000: error while attempting to bind"):
        run_listening(uvicorn_failing, settings)
    assert caplog.records == []  # nothing of uvicorn's reaches the terminal
    with pytest.raises(SystemExit):  # any other exit goes on as it was
        run_listening(lambda s: sys.exit(3), settings)


# ------------------------------------------------------------------------------------- running it for a club
def unit_settings() -> dict[str, list[str]]:
    """The ``Key=value`` lines of deploy/audit.service."""
    out: dict[str, list[str]] = {}
    for line in (ROOT / "deploy" / "audit.service").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            out.setdefault(key.strip(), []).append(value.strip())
    return out


def test_the_units_command_line_serves_and_stops_cleanly(tmp_path: Path) -> None:
    """The service started as deploy/audit.service starts it (its ExecStart, with this machine's audit, a database
    in a temporary folder and a free loopback port), answering /healthz, then stopped by its KillSignal."""
    unit = unit_settings()
    [exec_start] = unit["ExecStart"]
    argv = shlex.split(exec_start)
    assert argv[0] == "/opt/audit/bin/audit" and argv[1] == "serve"
    db = argv[argv.index("--db") + 1]
    assert db.startswith(unit["WorkingDirectory"][0] + "/") and unit["ReadWritePaths"][0].split()[0] == \
        unit["WorkingDirectory"][0]
    assert argv[argv.index("--host") + 1] == "127.0.0.1"  # the proxy answers the internet, not the service
    port = argv[argv.index("--port") + 1]
    assert f"reverse_proxy 127.0.0.1:{port}" in (ROOT / "deploy" / "Caddyfile").read_text()
    assert f"proxy_pass http://127.0.0.1:{port};" in (ROOT / "deploy" / "nginx.conf").read_text()
    argv[0] = AUDIT
    argv[argv.index("--db") + 1] = str(tmp_path / "club.duckdb")
    argv[argv.index("--port") + 1] = "0"
    proc, bound = start_script(argv, script_env(PYTHONUNBUFFERED="1"), tmp_path / "unit.log")
    try:
        assert healthz(bound) == b'{"status":"ok"}'
        assert (tmp_path / "club.duckdb.control").is_socket()  # audit backup can reach it
    finally:
        proc.send_signal(getattr(signal, unit["KillSignal"][0]))
        assert proc.wait(60) == 0, (tmp_path / "unit.log").read_text()
    assert unit["Restart"] == ["on-failure"] and unit["RestartPreventExitStatus"] == ["2"]
