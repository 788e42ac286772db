"""The logs in a request body: ``multipart/form-data`` (field ``file``, repeatable; a page's pasted ``text``) or
one log as the raw body (``text/plain``, its name in ``?name=``). Anything else is a 400 or a 415.

A log is spooled to a temporary file as it arrives (kept in memory up to ``SPOOL_IN_MEMORY`` bytes), never held
whole in memory while the body comes in: the service reads it when its turn to be audited comes
(``Service.upload``), and the file is gone once the request is answered.
"""

from __future__ import annotations

import datetime as dt
import re
import tempfile
from dataclasses import dataclass, field
from typing import IO, BinaryIO, cast

from fastapi import HTTPException, Request
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException

NO_LOG = "the form holds no log: send each log as a field named 'file'"
RAW_TYPES = frozenset({"text/plain", "application/octet-stream"})
NAME_CHARS = 200
SPOOL_IN_MEMORY = 1024 * 1024
"""A log up to this size stays in memory as it arrives; a larger one goes to a temporary file."""

# The request body, documented for /openapi.json (the routes read it themselves, to stream and limit it).
OPENAPI_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "file": {"type": "array", "items": {"type": "string", "format": "binary"},
                                 "description": "One or more hand-history files."},
                        "profile": {"type": "string", "description": "Rule profile for logs without a "
                                                                     "'Profile:' line (default home-open)."},
                    },
                    "required": ["file"],
                },
                "encoding": {"file": {"contentType": "text/plain, application/octet-stream"}},
            },
            "text/plain": {"schema": {"type": "string", "description": "One log; its name in ?name="}},
        },
    }
}


@dataclass
class Logs:
    """The logs of one request, as ``(name, bytes or the file they were spooled to)``, and the profile the form
    asked for (if any)."""

    files: list[tuple[str, bytes | IO[bytes]]] = field(default_factory=list)
    profile: str | None = None
    lang: str | None = None


def safe_name(raw: str | None, fallback: str) -> str:
    """A log's name as shown and stored: its last path part, without control characters, at most 200
    characters; ``fallback`` when nothing is left."""
    name = re.split(r"[\\/]", raw or "")[-1]
    name = "".join(ch for ch in name if ch.isprintable()).strip()
    return name[:NAME_CHARS] or fallback


def pasted_name() -> str:
    """The name of a log pasted into the page."""
    return f"pasted-{dt.datetime.now():%Y-%m-%d-%H%M%S}.txt"


async def read_logs(request: Request, name: str | None, max_files: int, max_text: int) -> Logs:
    """The logs of an upload or check request; 415 for another kind of body, 400 for a form without a log.
    ``max_text``: the largest field that is not a file (a pasted log)."""
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media == "multipart/form-data":
        return await _read_form(request, max_files, max_text)
    if media in RAW_TYPES:
        spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)
        try:
            async for chunk in request.stream():
                spool.write(chunk)
        except BaseException:
            spool.close()
            raise
        return Logs([(safe_name(name, "upload.txt"), spool)])
    raise HTTPException(415, "send the log as the body with 'Content-Type: text/plain' (its name in ?name=), "
                             "or as multipart/form-data with a field named 'file'")


async def _read_form(request: Request, max_files: int, max_text: int) -> Logs:
    try:  # max_part_size bounds a field that is not a file: a log pasted into the page may be as large as a file
        form = await request.form(max_files=max_files, max_fields=20, max_part_size=max_text)
    except MultiPartException as exc:
        raise HTTPException(400, f"the form could not be read: {exc.message}") from None
    except (ValueError, KeyError, UnicodeDecodeError) as exc:
        raise HTTPException(400, f"the form could not be read ({type(exc).__name__})") from None
    logs = Logs()
    try:
        for value in form.getlist("file"):
            if isinstance(value, UploadFile):
                if not value.size and not value.filename:
                    continue  # a page's file input left empty
                spooled = value.file  # the parser spooled the part as it came; the form's close leaves it open
                value.file = cast(BinaryIO, tempfile.SpooledTemporaryFile(max_size=1))
                logs.files.append((safe_name(value.filename, "upload.txt"), spooled))
            elif value:
                logs.files.append(("upload.txt", value.encode("utf-8")))
        text = form.get("text")
        if isinstance(text, str) and text.strip():
            logs.files.insert(0, (pasted_name(), text.encode("utf-8")))
        profile = form.get("profile")
        logs.profile = profile if isinstance(profile, str) else None
        lang = form.get("lang")
        logs.lang = lang if isinstance(lang, str) else None
    finally:
        await form.close()
    if not logs.files:
        raise HTTPException(400, NO_LOG)
    return logs
