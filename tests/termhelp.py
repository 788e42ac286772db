"""Running the real ``audit`` command with one of its streams on a pseudo-terminal of a given size, as a person's
terminal is."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import termios
import time
from pathlib import Path

from conftest import AUDIT


def on_a_terminal(args: list[str], stream: str = "stderr", columns: int = 250, stdin: Path | None = None,
                  env: dict[str, str] | None = None) -> tuple[str, str, int]:
    """Run ``audit ARGS`` with ``stream`` (``stdout`` or ``stderr``) on a pseudo-terminal ``columns`` wide and the
    other on a pipe: (what the terminal showed, what the pipe got, exit status)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    on_terminal = {"stdout": slave, "stderr": subprocess.PIPE} if stream == "stdout" else \
        {"stdout": subprocess.PIPE, "stderr": slave}
    with open(stdin or os.devnull, "rb") as source:
        proc = subprocess.Popen([AUDIT, *args], stdin=source, env=env, **on_terminal)
    os.close(slave)
    shown = b""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
        elif proc.poll() is not None:
            break
    piped = proc.stdout if stream == "stderr" else proc.stderr
    assert piped is not None
    out = piped.read().decode()
    proc.wait(timeout=60)
    os.close(master)
    return shown.decode(errors="replace"), out, proc.returncode
