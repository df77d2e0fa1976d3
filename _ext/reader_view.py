"""The book as a reader sees it: offline maths, per-page exercise numbers, clean solution cells.

- MathJax is served from the build, not a CDN: the vendored copy in `_ext/vendor/mathjax`
  (MathJax 3.2.2 from the npm registry, Apache-2.0, its LICENSE beside it) is added as a static
  path and `mathjax_path` points at it. It sits outside `_static/` on purpose: Jupyter Book adds
  every `.js` file under `_static/` to every page, and only pages with formulas need MathJax.
- Exercise numbers restart on every page ("Exercise 1" is the first exercise of that page).
  Sphinx numbers enumerable nodes across the whole book when the table of contents is not
  numbered, so the CUDA page used to open on "Exercise 14".
- A solution cell (tag `solution`) starts with Colab's form title, `# @title Solution ...`, which
  makes Colab hide the code. The book shows the code without that line; the `.ipynb` keeps it.
- After the build, every page is rewritten for accessibility and weight (axe-core flagged these
  on every page; tests/browser checks them):
  - the sidebar's expand buttons (`<summary>` with only an icon) get a name, "Sections of ...";
  - buttons whose accessible name differed from their visible text lose the stray label: the
    toggles of hidden cells ("Toggle hidden content" over "Show solution"), the search button
    ("Search" over "Search Ctrl+K"), the colour-mode icons' titles ("Light" inside "Color mode");
  - `fontawesome.js` (1.5 MB, which redraws every icon as SVG) is not loaded: the theme's style
    sheet already draws the same icons with Font Awesome's web fonts (about 0.3 MB, fetched only
    for the faces a page uses).
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment
from sphinx.locale import get_translation
from sphinx.transforms import SphinxTransform

VENDOR = Path(__file__).parent / "vendor"
MATHJAX_PATH = "mathjax/tex-chtml.js"


def _offline_mathjax(app: Sphinx, config: Config) -> None:
    config.html_static_path = [*config.html_static_path, str(VENDOR)]
    config.mathjax_path = MATHJAX_PATH


def _number_exercises_per_page(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Renumber exercises 1, 2, ... within each document, in document order."""
    for numbers in env.toc_fignumbers.values():
        exercises = numbers.get("exercise")
        if exercises:
            numbers["exercise"] = {ids: (i,) for i, ids in enumerate(exercises, start=1)}
    return []


class StripColabTitle(SphinxTransform):
    """Drop the `# @title ...` first line from the shown source of cells tagged `solution`."""

    default_priority = 700

    def apply(self, **kwargs: Any) -> None:
        for cell in self.document.findall(nodes.container):
            if "tag_solution" not in cell.get("classes", []):
                continue
            for block in cell.findall(nodes.literal_block):
                parent = block.parent
                if not isinstance(parent, nodes.container) or "cell_input" not in parent.get("classes", []):
                    continue
                text = block.astext()
                first, _, rest = text.partition("\n")
                if first.lstrip().startswith("# @title"):
                    block.children = [nodes.Text(rest)]
                    block.rawsource = rest


_ = get_translation("course")  # translated in the editions (_ext/editions.py)

_REWRITES: list[tuple[re.Pattern[str], Any]] = [
    (re.compile(r'<script defer src="[^"]*/fontawesome\.js[^"]*"></script>\s*'), ""),
    (re.compile(r'<link rel="preload" as="script" href="[^"]*/fontawesome\.js[^"]*"\s*/?>\s*'), ""),
    (re.compile(r'<summary aria-label="[^"]*">'), "<summary>"),
    (re.compile(r'(<button class="btn search-button-field[^"]*"[^>]*?) aria-label="[^"]*"'), r"\1"),
    (re.compile(r'(<i class="theme-switch [^"]*"[^>]*?) title="[^"]*"'), r"\1"),
    (
        re.compile(
            r'(<a class="[^"]*reference internal[^"]*" href="[^"]*">)((?:(?!</?a[ >]).)*)'
            r'(</a><details(?: open="open")?>)'
            r'<summary>(?!<span class="visually-hidden">)'
        ),
        lambda m: (f"{m[1]}{m[2]}{m[3]}<summary><span class=\"visually-hidden\">"
                   + _("Sections of {title}").format(
                       title=html.escape(html.unescape(re.sub(r"<[^>]+>", "", m[2])), quote=False))
                   + "</span>"),
    ),
]


def rewrite_page(text: str) -> str:
    """Apply the accessibility and weight rewrites to one page (idempotent)."""
    for pattern, replacement in _REWRITES:
        text = pattern.sub(replacement, text)
    return text


def _rewrite_pages(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        if "_static" in page.parts:
            continue
        text = page.read_text(encoding="utf-8")
        new = rewrite_page(text)
        if new != text:
            page.write_text(new, encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", _offline_mathjax)
    # After Sphinx's own TocTreeCollector (priority 500) has assigned the book-wide numbers.
    app.connect("env-get-updated", _number_exercises_per_page, priority=900)
    app.add_transform(StripColabTitle)
    app.connect("build-finished", _rewrite_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
