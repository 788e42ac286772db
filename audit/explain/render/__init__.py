"""Renderers: visitors over the one record of what happened (``audit.explain.records``). ``text`` for a
terminal, ``jsonl`` for scripts, ``html`` for one self-contained page (Jinja2 templates, autoescaped, with the
CSS and a few lines of JavaScript inlined)."""

from __future__ import annotations

from audit.explain.render.jsonl import render_json_lines
from audit.explain.render.text import render_text

__all__ = ["render_html", "render_json_lines", "render_text"]


def render_html(*args: object, **kwargs: object) -> str:
    """``audit.explain.render.html.render_html``, imported only when a page is wanted (it loads Jinja2)."""
    from audit.explain.render.html import render_html as render

    return render(*args, **kwargs)  # type: ignore[arg-type]
