"""Sphinx configuration of audit's documentation: furo, MyST Markdown, the command reference from click.

Built by ``make docs`` (warnings are errors: a broken link or reference fails the build, and ``make test`` runs
it). The pages under ``reference/`` marked "generated" are written by ``make docs-reference`` from the code.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from audit import __version__  # noqa: E402

project = "audit"
author = "the audit project"
copyright = "2026, the audit project"
version = release = __version__

extensions = ["myst_parser", "sphinx_click"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
# Every link and reference must resolve: a broken one is a warning, and warnings fail the build.
nitpicky = True
suppress_warnings: list[str] = []

# Blocks without a language are shell commands and logs, not Python.
highlight_language = "text"

html_theme = "furo"
html_title = f"audit {release}"
html_static_path: list[str] = []
html_show_sourcelink = False
# Options are written as typed (--db, not an en dash), quotes as in the help.
smartquotes = False

_RST_INLINE = re.compile(r"([\\*`_|])")


def _plain_help(app: Any, ctx: Any, lines: list[str]) -> None:
    """The commands' help is plain text, as ``--help`` prints it, not reStructuredText: ``*.txt`` or ``$AUDIT_DB``
    must show as written, so every character that would start inline markup is escaped, and a block click keeps
    as written (``\\b``: the examples, the exit statuses) is a literal block."""
    out: list[str] = []
    in_block = False
    for line in lines:
        if line.startswith("| "):
            if not in_block:
                out += ["::", ""]
                in_block = True
            out.append("    " + line[2:])
            continue
        if in_block:
            out.append("")
            in_block = False
        stripped = line.lstrip()
        out.append(line if stripped.startswith((".. ", ":")) else _RST_INLINE.sub(r"\\\1", line))
    lines[:] = out


def setup(app: Any) -> None:
    for event in ("sphinx-click-process-description", "sphinx-click-process-options",
                  "sphinx-click-process-epilog", "sphinx-click-process-arguments"):
        app.connect(event, _plain_help)
