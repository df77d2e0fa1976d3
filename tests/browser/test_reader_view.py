"""The page rewrites of _ext/reader_view.py, on fragments of the theme's real markup (no browser)."""

from __future__ import annotations

import importlib.util

from tools.course import ROOT

_spec = importlib.util.spec_from_file_location("reader_view", ROOT / "_ext" / "reader_view.py")
assert _spec and _spec.loader
reader_view = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reader_view)

SIDEBAR = (
    '<li class="toctree-l1 has-children"><a class="reference internal" href="../chapters/graphs.html">Graphs and '
    '<code class="docutils literal notranslate"><span class="pre">torch.cond</span></code></a><details><summary>'
    '<span class="toctree-toggle" role="presentation"><i class="fa-solid fa-chevron-down"></i></span></summary>'
    '<li class="toctree-l1 has-children"><a class="current reference internal" href="#">CUDA &amp; ROCm</a>'
    '<details open="open"><summary><span class="toctree-toggle" role="presentation"></span></summary>'
)
BUTTONS = (
    '<script defer src="../_static/scripts/fontawesome.js?digest=55c26ed414f5f8a31ebb"></script>\n'
    '<button class="btn search-button-field search-button__button pst-js-only" title="Search" aria-label="Search" '
    'data-bs-placement="bottom">\n'
    '<i class="theme-switch fa-solid fa-sun fa-lg" data-mode="light" title="Light"></i>\n'
    '<summary aria-label="Toggle hidden content">\n<p class="collapsed admonition-title">Show solution</p>'
)


def test_sidebar_expand_buttons_get_names() -> None:
    page = reader_view.rewrite_page(SIDEBAR)
    assert '<summary><span class="visually-hidden">Sections of Graphs and torch.cond</span>' in page
    assert '<summary><span class="visually-hidden">Sections of CUDA &amp; ROCm</span>' in page
    assert reader_view.rewrite_page(page) == page, "the rewrite must be idempotent (incremental builds)"


def test_names_match_visible_text_and_fontawesome_js_is_dropped() -> None:
    page = reader_view.rewrite_page(BUTTONS)
    assert "fontawesome.js" not in page
    assert 'aria-label="Search"' not in page and 'title="Search"' in page
    assert 'title="Light"' not in page and 'data-mode="light"' in page
    assert "<summary>\n" in page and "Toggle hidden content" not in page
    assert reader_view.rewrite_page(page) == page
