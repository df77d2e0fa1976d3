"""Render each inline <script> of a page once.

With Jupyter Book 1.0.4, Sphinx 7.4 and sphinx-book-theme 1.3, the inline configuration scripts
of sphinx-thebe and sphinx-togglebutton reach every page twice (once as added, once re-read from
Sphinx's registry); the second copy of
`const THEBE_JS_URL = ...` throws "Identifier has already been declared" in the browser, which
the browser test (tests/browser) catches. Dropping exact repeats fixes it without touching the
extensions.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx


def _drop_repeats(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
    unique = []
    for script in scripts:
        # The same inline script can arrive once with filename None and once with "" (Sphinx 7.4
        # re-reads the registry, which stores None as ""), so those two count as equal.
        key = (getattr(script, "filename", None) or "",
               tuple(sorted((k, str(v)) for k, v in getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("html-page-context", _drop_repeats, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
