"""The reports: one SQL file each in ``reports/``, with a title, a description and the parameters it takes.

A report file starts with ``-- title:``, ``-- description:`` and one ``-- param: NAME TYPE what it does`` line per
parameter; in its SQL a parameter is ``$NAME`` and is null when not given. The usual ones are ``from_date`` and
``to_date`` (days of play, inclusive), ``profile`` and ``table_name``.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from audit.errors import AuditError
from audit.textout import shown

PARAM_TYPES = ("DATE", "VARCHAR", "INTEGER")
INT_MAX = 2 ** 31 - 1
"""A report's whole-number parameter is from 0 to this (an SQL ``INTEGER``; a ``limit`` of -1 would fail in the
report's SQL)."""


@dataclass(frozen=True)
class ReportParam:
    """A parameter a report takes: ``$name`` in its SQL."""

    name: str
    type: str  # one of PARAM_TYPES
    help: str


@dataclass(frozen=True)
class Report:
    """A report file: ``reports/<name>.sql``."""

    name: str
    title: str
    description: str
    sql: str
    params: tuple[ReportParam, ...] = ()

    def param(self, name: str) -> ReportParam | None:
        """The parameter ``name``, if the report takes it."""
        return next((p for p in self.params if p.name == name), None)


_HEADER = re.compile(r"^--\s*(title|description|param):\s*(.*?)\s*$")
_PARAM = re.compile(r"^([a-z_][a-z0-9_]*)\s+(DATE|VARCHAR|INTEGER)\s+(.*)$")


def parse_report(name: str, text: str) -> Report:
    """A report from its file's text (``AuditError`` for a malformed ``-- param:`` line)."""
    meta: dict[str, str] = {}
    params: list[ReportParam] = []
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        m = _HEADER.match(line)
        if m is None:
            continue
        if m.group(1) != "param":
            meta[m.group(1)] = m.group(2)
            continue
        p = _PARAM.match(m.group(2))
        if p is None:
            raise AuditError(f"report {name}: a parameter line must read '-- param: NAME TYPE what it does' "
                             f"(TYPE: {', '.join(PARAM_TYPES)}): {shown(line)}")
        params.append(ReportParam(p.group(1), p.group(2), p.group(3)))
    return Report(name, meta.get("title", name), meta.get("description", ""), text, tuple(params))


def load_reports() -> dict[str, Report]:
    """Every report shipped in ``reports/``, by name (the file name without ``.sql``)."""
    from audit.resources import data_dir

    return {path.stem: parse_report(path.stem, path.read_text(encoding="utf-8"))
            for path in sorted(data_dir("reports").glob("*.sql"))}


def find_report(name: str) -> Report:
    """The report ``name``; ``AuditError`` naming the reports (and the nearest name) when there is none."""
    reports = load_reports()
    chosen = reports.get(name)
    if chosen is None:
        raise AuditError(unknown_report(name, f"audit report --list names them: {', '.join(reports)}"))
    return chosen


def unknown_report(name: str, listed: str) -> str:
    """The words for a report ``name`` that does not exist, with the nearest report's name when one is near
    (``did you mean 'misawarded-pots'?``) and ``listed``, where to find them all (the command line and the
    service each say their own way)."""
    import difflib

    near = difflib.get_close_matches(name, list(load_reports()), n=1)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    return f"no report named {shown(name)}{hint} ({listed})"


def report_params(report: Report, given: dict[str, object]) -> dict[str, object]:
    """Every parameter ``report`` takes, bound to its value in ``given`` (``None`` when not given) and checked
    (a date is ``YYYY-MM-DD``, an integer is whole, from 0 to ``INT_MAX``); ``AuditError`` for a parameter it
    does not take. ``audit report``, ``Store.frame`` and the service's reports all check them here."""
    for name in given:
        if report.param(name) is None:
            takes = ", ".join(p.name for p in report.params) or "none"
            raise AuditError(f"the report {report.name} takes no parameter {shown(name)} (it takes: {takes})")
    out: dict[str, object] = {}
    for p in report.params:
        value = given.get(p.name)
        out[p.name] = None if value is None else _checked(p, value)
    return out


def _checked(p: ReportParam, value: object) -> object:
    if p.type == "DATE":
        if isinstance(value, dt.datetime):
            return value.date()
        if isinstance(value, dt.date):
            return value
        try:
            return dt.date.fromisoformat(str(value))
        except ValueError:
            raise AuditError(f"{p.name}: {shown(str(value))} is not a date (write it YYYY-MM-DD)") from None
    if p.type == "INTEGER":
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            try:
                number = int(str(value))
            except ValueError:
                raise AuditError(f"{p.name}: {shown(str(value))} is not a whole number") from None
        if not 0 <= number <= INT_MAX:
            raise AuditError(f"{p.name}: {number} is out of range (a whole number from 0 to {INT_MAX})")
        return number
    return str(value)
