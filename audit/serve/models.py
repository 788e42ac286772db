"""The JSON the API answers with, as pydantic models (they make ``/openapi.json``'s schemas)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Problem(BaseModel):
    """Why a request was refused."""

    detail: str


class Health(BaseModel):
    status: Literal["ok", "unavailable"]
    reason: str | None = None


class UploadResult(BaseModel):
    """What one log of an upload came to."""

    name: str
    sha256: str = Field(description="SHA-256 of the log's bytes: its id in the other routes")
    status: Literal["stored", "duplicate", "unreadable"] = Field(
        description="stored; duplicate (this club has the same bytes already: nothing added); unreadable "
                    "(nothing stored, see message)")
    hands: int
    violations: int
    warnings: int
    errors: int
    message: str | None = None


class UploadsResult(BaseModel):
    uploads: list[UploadResult]


class UploadInfo(BaseModel):
    """A log of the club."""

    name: str
    sha256: str
    size: int
    received_at: str
    profile: str
    hands: int
    violations: int
    warnings: int
    errors: int


class FindingOut(BaseModel):
    """A finding, with the fields of ``audit check --format json``."""

    file: str
    session: str | None
    hand: str | None
    rule: str
    severity: str
    player: str | None
    street: str | None
    line: int
    message: str
    expected: str | None
    actual: str | None
    msg_id: str | None = Field(None, description="the message's id in audit's catalogue, to say it in another "
                                                 "language (null for a finding stored before findings kept it)")
    params: dict[str, str | int] = Field(default_factory=dict, description="the message's parameters")


class Unreadable(BaseModel):
    name: str
    message: str


class CheckResult(BaseModel):
    """The findings of the logs sent, in file and line order; nothing is stored."""

    findings: list[FindingOut]
    unreadable: list[Unreadable] = Field(default_factory=list,
                                         description="logs that could not be read at all")


class ReportParamInfo(BaseModel):
    name: str
    type: Literal["DATE", "VARCHAR", "INTEGER"]
    description: str


class ReportInfo(BaseModel):
    name: str
    title: str
    description: str
    params: list[ReportParamInfo]


ERRORS: dict[int | str, dict[str, object]] = {
    400: {"model": Problem, "description": "Not a log upload"},
    401: {"model": Problem, "description": "A token is needed"},
    403: {"model": Problem, "description": "Refused (a cross-site form, or no token defined and not on this "
                                           "machine)"},
    404: {"model": Problem, "description": "No such log of this club"},
    408: {"model": Problem, "description": "The body did not arrive in time"},
    413: {"model": Problem, "description": "The body is over the size limit"},
    415: {"model": Problem, "description": "Not multipart/form-data nor text/plain"},
}
"""The refusals each API route may answer with."""


def errors(*codes: int) -> dict[int | str, dict[str, object]]:
    """The refusals ``codes`` of ``ERRORS``, for a route's ``responses``."""
    return {c: ERRORS[c] for c in codes}
