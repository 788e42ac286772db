"""``audit check``: audit files and print the findings (text for people, JSON Lines for scripts)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import IO

from audit.errors import NotAHandHistory
from audit.findings import Finding
from audit.parallel import CHUNK_BYTES, Checked, CheckedFiles
from audit.profile import Profile
from audit.read import expand_paths
from audit.rules import NOT_CHECKED, SEVERITY_RANK
from audit.textout import json_line, printable
from audit.words import finding_message, has, rule_what, say

PROGRESS_HANDS = 200
"""``progress`` is called at most every this many hands (and as each file starts and ends)."""
_WHERE = re.compile(r"\bline \d+(?:, column \d+)?: ")
_SEVERITIES = ("violation", "warning", "error")


class CheckSummary:
    """What a check has found so far, kept up to date as it runs (an output closed halfway stops it, and the
    command ends with the status of what was found until then)."""

    def __init__(self) -> None:
        self.files = 0  # files to check
        self.files_done = 0
        self.hands = 0
        self.worst = 0  # the worst severity rank found (0: none)
        self.counts: dict[str, int] = {s: 0 for s in _SEVERITIES}
        self.by_rule: dict[str, dict[str, int]] = {}  # rule -> severity -> findings
        self.by_file: dict[str, dict[str, int]] = {}  # file -> severity -> findings (files with findings)
        self.current = ""  # the file being read

    def add(self, f: Finding) -> None:
        if f.rule not in NOT_CHECKED:
            self.worst = max(self.worst, SEVERITY_RANK[f.severity])
        self.counts[f.severity] += 1
        rule = self.by_rule.setdefault(f.rule, {})
        rule[f.severity] = rule.get(f.severity, 0) + 1
        file = self.by_file.setdefault(f.file, {})
        file[f.severity] = file.get(f.severity, 0) + 1


Progress = Callable[[CheckSummary], None]


def check_paths(paths: list[str], profile: Profile, fmt: str, out: IO[str], lang: str = "en",
                err: IO[str] | None = None, summary: CheckSummary | None = None, progress: Progress | None = None,
                closing: bool = True, jobs: int = 1, chunk_bytes: int = CHUNK_BYTES) -> int:
    """Audit ``paths`` and write findings to ``out`` (notes for the user to ``err``); returns the worst severity
    rank found (0: none).

    ``lang`` is the language of the text output (``en`` or ``es``); JSON always carries the English message. The
    text output groups findings by hand, says a problem that repeats through a file once (an unreadable block
    after block), and closes with the counts by rule, by file and in all (not with ``closing=False``).
    ``summary`` is kept up to date as the files are read, and ``progress`` is told how far the check is.
    ``jobs`` > 1 audits files, and long files in parts of whole sessions (about ``chunk_bytes`` each), in that
    many worker processes; the output is the same.
    """
    files = expand_paths(paths)
    tally = summary if summary is not None else CheckSummary()
    tally.files = len(files)
    notices: list[str] = []
    text = fmt != "json"
    with CheckedFiles(files, profile, jobs, notices, chunk_bytes) as checked:
        for file, blocks in checked:
            tally.current = file
            if progress is not None:
                progress(tally)
            _check_file(file, blocks, tally, text, lang, out, err, notices, progress)
    if text and closing:
        out.write(closing_text(tally, lang))
    return tally.worst


def _check_file(file: str, blocks: Iterator[Checked], tally: CheckSummary, text: bool, lang: str, out: IO[str],
                err: IO[str] | None, notices: list[str], progress: Progress | None) -> None:
    """Print one file's findings (``blocks``: its hands counted and their findings, in order); a file that is
    no hand history is one line among the notes."""
    repeats: dict[str, list[int]] = {}  # the reason of an unreadable block -> lines of its repeats
    try:
        _print_blocks(blocks, tally, text, lang, out, err, notices, progress, repeats)
    except NotAHandHistory as exc:  # (raised before any of its blocks is given: nothing of it was printed)
        notices.append(str(exc))
    if notices:
        _say(notices, err)
    if text:
        _repeated(file, repeats, lang, out)
    tally.files_done += 1
    tally.current = ""
    if progress is not None:
        progress(tally)


def _print_blocks(blocks: Iterator[Checked], tally: CheckSummary, text: bool, lang: str, out: IO[str],
                  err: IO[str] | None, notices: list[str], progress: Progress | None,
                  repeats: dict[str, list[int]]) -> None:
    group: tuple[str, str] | None = None
    since = 0
    for counted, findings in blocks:
        if notices:
            _say(notices, err)
        if counted:
            tally.hands += counted
            since += counted
            if progress is not None and since >= PROGRESS_HANDS:
                since = 0
                progress(tally)
        for f in findings:
            tally.add(f)
            if not text:
                out.write(json_line(f.as_dict()) + "\n")
                continue
            if f.rule == "PARSE_ERROR":
                reason = _WHERE.sub("", f.message.split("\n", 1)[0], count=1)
                seen = repeats.get(reason)
                if seen is not None:
                    seen.append(f.line)
                    continue
                repeats[reason] = []
            at = _group(f, lang)
            if at != group:
                group = at
                out.write("\n" + printable(at[1]) + "\n")
            out.write(_text_line(f, lang) + "\n")


def closing_text(tally: CheckSummary, lang: str = "en") -> str:
    """The closing lines: the findings by rule and by file (when there are any), then the totals."""
    lines = [""]
    if tally.by_rule:
        lines.append(say("check.by_rule", lang))
        width = max(len(rule) for rule in tally.by_rule)
        for rule in sorted(tally.by_rule, key=lambda r: (-sum(tally.by_rule[r].values()), r)):
            lines.append(f"  {rule:<{width}}  {_counts(tally.by_rule[rule], lang)}")
        lines.append(say("check.by_file", lang))
        width = max(len(printable(file)) for file in tally.by_file)
        for file in sorted(tally.by_file):
            lines.append(f"  {printable(file):<{width}}  {_counts(tally.by_file[file], lang)}")
    lines.append(say("check.summary", lang, hands=say("unit.hands", lang, n=tally.hands),
                     files=say("check.files", lang, n=tally.files),
                     violations=say("check.violations", lang, n=tally.counts["violation"]),
                     warnings=say("check.warnings", lang, n=tally.counts["warning"]),
                     errors=say("check.errors", lang, n=tally.counts["error"])))
    return "\n".join(lines) + "\n"


def _counts(by_severity: dict[str, int], lang: str) -> str:
    return ", ".join(say(f"check.{s}s", lang, n=by_severity[s]) for s in _SEVERITIES if s in by_severity)


def _group(f: Finding, lang: str) -> tuple[str, str]:
    """The heading a finding is listed under: its file and hand (or session, or unreadable block)."""
    if f.hand is not None:
        return f.file, f"{f.file}: {say('check.hand', lang, hand=f.hand)}"
    if f.rule != "PARSE_ERROR" and f.session is not None:
        return f.file, f"{f.file}: {say('check.session', lang, session=f.session)}"
    return f.file, f"{f.file}: {say('check.block', lang, line=f.line)}"


def _repeated(file: str, repeats: dict[str, list[int]], lang: str, out: IO[str]) -> None:
    """One line per problem that came back in more blocks of ``file`` (a whole file in a format audit does not
    read would otherwise say the same thing once per block)."""
    for lines in repeats.values():
        if lines:
            shown = ", ".join(str(n) for n in lines[:5]) + (", …" if len(lines) > 5 else "")
            out.write(printable(f"  {say('check.same_again', lang, n=len(lines), file=file, lines=shown)}") + "\n")


def _text_line(f: Finding, lang: str) -> str:
    where = say("check.line", lang, line=f.line)
    return printable(f"  {where:>10}  {say('severity.' + f.severity, lang):<9} {f.rule:<20} {finding_text(f, lang)}",
                     newlines=True)


def finding_text(f: Finding, lang: str) -> str:
    """A finding in ``lang``: from its message id when it has one, else the engine's English message, or in
    another language the player and what the rule says went wrong."""
    if f.msg_id is not None and has(f.msg_id):
        return finding_message(f.msg_id, lang, f.params)
    if lang == "en" or not has(f"rule.{f.rule}.what"):
        return f.message
    what = rule_what(f.rule, lang)
    return say("check.finding_player", lang, player=f.player, what=what) if f.player else what


def _say(notices: list[str], err: IO[str] | None) -> None:
    """Write the pipeline's notes to ``err`` and forget them."""
    if err is not None:
        for note in notices:
            err.write(f"audit: note: {printable(note)}\n")
    notices.clear()
