"""The logs in a request body: ``multipart/form-data`` (field ``file``, repeatable; a page's pasted ``text``) or
one log as the raw body (``text/plain``, its name in ``?name=``). Anything else is a 400 or a 415."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from fastapi import HTTPException, Request
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException

NO_LOG = "the form holds no log: send each log as a field named 'file'"
RAW_TYPES = frozenset({"text/plain", "application/octet-stream"})
NAME_CHARS = 200

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
    """The logs of one request, as ``(name, bytes)``, and the profile the form asked for (if any)."""

    files: list[tuple[str, bytes]] = field(default_factory=list)
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
        data = await request.body()
        return Logs([(safe_name(name, "upload.txt"), data)])
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
                data = await value.read()
                if not data and not value.filename:
                    continue  # a page's file input left empty
                logs.files.append((safe_name(value.filename, "upload.txt"), data))
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
