"""Backups of a database, taken by the program that holds it.

DuckDB lets one program use a database file, so while ``audit serve`` runs no other program can open it, and a
plain copy of the file could catch a write half done. The service therefore listens on a **control socket**
beside the database (``club.duckdb.control``, a Unix socket, mode 0600, and each caller's user id checked: only
the user the service runs as, or root, is answered). ``audit backup`` asks it for a copy; the service takes it in
its one writer thread, between two uploads (each its own transaction): ``CHECKPOINT`` writes everything committed
into the file, which is then copied while no write can start. No HTTP client can reach this socket.

With no service holding the database, ``audit backup`` opens it itself (taking DuckDB's lock, so that no other
program writes meanwhile), checkpoints and copies it the same way. Either way the copy is written beside
``DEST`` under a temporary name and linked into place: ``DEST`` is whole or absent, and an existing file is never
replaced.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import struct
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from audit.errors import AuditError

SUFFIX = ".control"
MAX_REQUEST = 64 * 1024
ANSWER_SECONDS = 3600.0


def control_path(db: str) -> Path:
    """The control socket of the database ``db``."""
    return Path(os.path.realpath(db) + SUFFIX)


def check_dest(dest: str) -> Path:
    """``dest`` as an absolute path, if a backup may be written there (``AuditError`` if not)."""
    path = Path(os.path.abspath(dest))
    if os.path.lexists(path):
        raise AuditError(f"{dest}: already exists; a backup never replaces a file: name a new one")
    if not path.parent.is_dir():
        raise AuditError(f"{dest}: the folder {path.parent} does not exist")
    return path


def copy_database(db: str, dest: Path) -> int:
    """Copy the file ``db`` (checkpointed, no write under way) to ``dest`` through a temporary file linked into
    place; the bytes copied."""
    temp = dest.with_name(f".{dest.name}.partial-{os.getpid()}-{threading.get_ident()}")
    try:
        with open(db, "rb") as src, open(temp, "xb") as out:
            shutil.copyfileobj(src, out, 1024 * 1024)
            out.flush()
            os.fsync(out.fileno())
            size = out.tell()
        os.chmod(temp, 0o600)  # it holds every club's logs and tokens' hashes, as the database does
        try:
            os.link(temp, dest)  # fails if dest appeared meanwhile: never replaced
        except FileExistsError:
            raise AuditError(f"{dest}: already exists; a backup never replaces a file: name a new one") from None
        return size
    finally:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass


def backup_job(db: str, dest: Path) -> Callable[[Any], int]:
    """The writer's job: checkpoint, then copy while the writer (the only one to write) waits for it."""
    def job(cursor: Any) -> int:
        cursor.execute("CHECKPOINT")
        return copy_database(db, dest)
    return job


class ControlServer:
    """The control socket of a running service; ``submit`` runs a job in the service's writer thread."""

    def __init__(self, db: str, submit: Callable[[Callable[[Any], int]], Future[int]]) -> None:
        self.db = os.path.realpath(db)
        self.path = control_path(db)
        self._submit = submit
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self.problem: str | None = None
        """Why there is no control socket (then ``audit backup`` says the service offers none)."""

    def start(self) -> None:
        """Listen; a place where the socket cannot go leaves the service without one (``problem`` says why)."""
        path = self.path
        try:
            if os.path.lexists(path) and not stat.S_ISSOCK(os.lstat(path).st_mode):
                self.problem = f"{path} exists and is not a socket: left as it is"
                return
            temp = path.with_name(f".{path.name}.{os.getpid()}")
            if os.path.lexists(temp):
                os.unlink(temp)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.bind(str(temp))
                os.chmod(temp, 0o600)
                sock.listen(8)
                os.replace(temp, path)  # a socket left by a service that was killed is replaced: we hold the file
            except BaseException:
                sock.close()
                raise
        except OSError as exc:
            self.problem = f"no control socket at {path}: {exc.strerror or exc}"
            return
        self._sock = sock
        self._thread = threading.Thread(target=self._serve, name="audit-control", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop answering and remove the socket (if it is still ours)."""
        self._stopping.set()
        sock, self._sock = self._sock, None
        if sock is None:
            return
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()
        if self._thread is not None:
            self._thread.join(5)
        try:
            os.unlink(self.path)
        except OSError:
            pass

    def _serve(self) -> None:
        sock = self._sock
        assert sock is not None
        while not self._stopping.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), name="audit-control-call", daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(30)
                answer = self._handle(conn)
            except Exception as exc:  # one caller's trouble never stops the service
                answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            try:
                conn.sendall(json.dumps(answer).encode() + b"\n")
            except OSError:
                pass

    def _handle(self, conn: socket.socket) -> dict[str, Any]:
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _, uid, _ = struct.unpack("3i", creds)
        if uid not in (os.getuid(), 0):
            return {"ok": False, "error": "only the user the service runs as may ask it for a backup"}
        data = read_line(conn, MAX_REQUEST)
        if len(data) > MAX_REQUEST:
            return {"ok": False, "error": "the request is too long"}
        request = json.loads(data)
        if not isinstance(request, dict) or request.get("op") != "backup" or not isinstance(request.get("dest"), str):
            return {"ok": False, "error": "unknown request"}
        dest = request["dest"]
        if not os.path.isabs(dest):
            return {"ok": False, "error": "the destination must be an absolute path"}
        try:
            path = check_dest(dest)
            size = self._submit(backup_job(self.db, path)).result(ANSWER_SECONDS)
        except AuditError as exc:
            return {"ok": False, "error": str(exc)}
        except OSError as exc:
            return {"ok": False, "error": f"{dest}: {exc.strerror or exc}"}
        return {"ok": True, "bytes": size, "dest": str(path)}


def read_line(sock: socket.socket, most: int | None = None) -> bytes:
    """What the other end sends up to its first line end (or until it closes); past ``most`` bytes, stops there."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
        if most is not None and len(data) > most:
            break
    return data


def ask_service(db: str, dest: Path, timeout: float = ANSWER_SECONDS) -> dict[str, Any] | None:
    """Ask the service holding ``db`` for a backup to ``dest``; None when no service answers on its socket."""
    path = control_path(db)
    if not os.path.lexists(path):
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        try:
            sock.connect(str(path))
        except (ConnectionRefusedError, FileNotFoundError):
            return None  # left by a service that is gone
        except PermissionError:
            raise AuditError(f"{path}: not yours to use; run audit backup as the user the service runs as") from None
        sock.sendall(json.dumps({"op": "backup", "dest": str(dest)}).encode() + b"\n")
        data = read_line(sock)
    finally:
        sock.close()
    try:
        answer: dict[str, Any] = json.loads(data)
    except ValueError:
        raise AuditError(f"{path}: the service gave no answer (did it stop?)") from None
    return answer


def backup_directly(db: str, dest: Path) -> int:
    """Back up ``db`` that no program holds: open it (DuckDB's lock keeps writers out), checkpoint, copy."""
    import duckdb

    from audit.store.db import LOCKED, open_error

    if not os.path.isfile(db):
        raise AuditError(f"{db}: no such database")
    try:
        con = duckdb.connect(db, config=dict(LOCKED))
    except duckdb.Error as exc:
        raise AuditError(open_error(db, exc) + " (a service started by an older audit offers no backups: "
                         "stop it and run audit backup again)") from None
    try:
        con.execute("CHECKPOINT")  # a write-ahead log left by a stopped program goes into the file first
        return copy_database(db, dest)
    finally:
        con.close()
