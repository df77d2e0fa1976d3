"""One strict Sphinx build of the book (its config from _config.yml), for the catalogs' extraction and each
edition's HTML."""

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
