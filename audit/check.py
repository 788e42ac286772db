"""``audit check``: audit files and print the findings (text for people, JSON Lines for scripts)."""

from __future__ import annotations

from typing import TextIO

from audit.findings import Finding
from audit.parallel import CHUNK_BYTES, CheckedFiles
from audit.profile import Profile
from audit.read import expand_paths
from audit.rules import SEVERITY_RANK
from audit.textout import json_line, printable
from audit.words import finding_message, has, rule_what, say


def check_paths(paths: list[str], profile: Profile, fmt: str, out: TextIO, lang: str = "en",
                err: TextIO | None = None, jobs: int = 1, chunk_bytes: int = CHUNK_BYTES) -> int:
    """Audit ``paths`` and write findings to ``out`` (notes for the user to ``err``); returns the worst severity
    rank found (0: none).

    ``lang`` is the language of the text output (``en`` or ``es``); JSON always carries the English message.
    ``jobs`` > 1 audits files, and long files in parts of whole sessions (about ``chunk_bytes`` each), in that
    many worker processes; the output is the same.
    """
    files = expand_paths(paths)
    worst = 0
    hands = 0
    counts = {"error": 0, "violation": 0, "warning": 0}
    notices: list[str] = []
    with CheckedFiles(files, profile, jobs, notices, chunk_bytes) as checked:
        for _file, blocks in checked:
            current_hand: str | None = None
            for counted, findings in blocks:
                if notices:
                    _say(notices, err)
                hands += counted
                for f in findings:
                    worst = max(worst, SEVERITY_RANK[f.severity])
                    counts[f.severity] += 1
                    if fmt == "json":
                        out.write(json_line(f.as_dict()) + "\n")
                    else:
                        if f.hand != current_hand:
                            current_hand = f.hand
                            out.write("\n" + printable(f"{f.file}: {say('check.hand', lang, hand=f.hand or '-')}")
                                      + "\n")
                        out.write(_text_line(f, lang) + "\n")
            if notices:
                _say(notices, err)
    if fmt == "text":
        out.write("\n" + say("check.summary", lang, hands=say("unit.hands", lang, n=hands),
                             files=say("check.files", lang, n=len(files)),
                             violations=say("check.violations", lang, n=counts["violation"]),
                             warnings=say("check.warnings", lang, n=counts["warning"]),
                             errors=say("check.errors", lang, n=counts["error"])) + "\n")
    return worst


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


def _say(notices: list[str], err: TextIO | None) -> None:
    """Write the pipeline's notes to ``err`` and forget them."""
    if err is not None:
        for note in notices:
            err.write(f"audit: note: {printable(note)}\n")
    notices.clear()
