"""One strict Sphinx build of the book (its config from _config.yml), for the catalogs' extraction and each
edition's HTML.

Through Jupyter Book's own `build_sphinx`, not the documented route (`jupyter-book config sphinx`, then
`sphinx-build`), tried on 2026-12-02 with jupyter-book 1.0.4.post1 and Sphinx 7.4.7: the gettext build that way
wrote the same 54 .pot files (only POT-Creation-Date differs) but was no faster (26.97 and 24.32 s against 25.08
and 23.99 s in process, two rounds on a loaded 2-core machine; `jupyter-book config sphinx` alone takes 1.7 s). It
also needs the generated conf.py in the book's root (html_static_path, html_favicon and the templates are relative
to it, and the command writes nowhere else), and an edition's HTML build passes `course_edition_pages`, a dict per
page, which sphinx-build's `-D` cannot set (Sphinx 7.4 refuses to override a dict setting, and `-D name.key=value`
sets strings). The editions' HTML could not be compared either way in that worktree (no _build/.jupyter_cache).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tools.course import ROOT, CourseError


def sphinx_build(builder: str, outdir: Path, overrides: dict[str, Any], doctrees: Path, root: Path = ROOT) -> None:
    """One Jupyter Book build (its config from _config.yml), strict, as `jupyter-book build --all` runs it: every
    page is written again, as new outputs in the execution cache are no change to a source."""
    from jupyter_book.sphinx import build_sphinx

    result = build_sphinx(
        str(root),
        str(outdir),
        noconfig=True,
        path_config=str(root / "_config.yml"),
        doctreedir=str(doctrees),
        confoverrides={"latex_individualpages": False, "external_toc_path": "_toc.yml", "nitpicky": True, **overrides},
        builder=builder,
        force_all=True,
        quiet=True,
        warningiserror=True,
        keep_going=True,
    )
    if result != 0:
        raise CourseError(f"the {builder} build into {outdir} failed ({result}); its warnings are above")
