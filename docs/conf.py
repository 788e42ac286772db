"""Sphinx configuration of audit's documentation: furo, MyST Markdown, the command reference from click.

Built by ``make docs`` (warnings are errors: a broken link or reference fails the build, and ``make test`` runs
it). The pages under ``reference/`` marked "generated" are written by ``make docs-reference`` from the code.
"""

from __future__ import annotations

import sys
from pathlib import Path

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

html_theme = "furo"
html_title = f"audit {release}"
html_static_path: list[str] = []
html_show_sourcelink = False
