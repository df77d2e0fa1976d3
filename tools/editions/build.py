"""The editions' HTML: each edition rendered into _build/html/<lang>/ from the executions the English build cached,
with each page's English revision and untranslated count, the extensions' compiled catalog, and the edition's
notebooks and student copies beside its pages."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import sphinx.locale
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo

from tools.course import ROOT, CourseError
from tools.editions import catalogs
from tools.editions.extract import extract_templates
from tools.editions.markup import has_words
from tools.editions.notebooks import EDITIONS_BRANCH, STUDENT_FOLDER, write_notebooks, write_student_notebooks
from tools.editions.sphinx_build import sphinx_build


def untranslated(template: Catalog, catalog: Catalog | None) -> int:
    """How many of a page's English messages with words to translate the edition shows in English (no catalog, or
    catalogs.translation finds no translation: missing, empty or fuzzy); numbers, code and links alone are not
    counted, as they read the same in every edition."""
    count = 0
    for english in template:
        if not english.id or not has_words(str(english.id)):
            continue
        message = catalog.get(english.id) if catalog is not None else None
        if catalogs.translation(message) is None:
            count += 1
    return count


def english_revision(docname: str, root: Path = ROOT) -> str:
    """The last commit that changed a page's English source, as `abc1234 (2026-12-01)`."""
    sources = [p for p in (root / f"{docname}.md", root / f"{docname}.ipynb") if p.exists()]
    try:
        found = subprocess.run(
            ["git", "log", "-1", "--format=%h (%cs)", "--", *map(str, sources)],
            cwd=root, capture_output=True, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        found = ""
    return found or "unknown (not a git checkout)"


def compile_extension_catalog(language: str, root: Path = ROOT) -> None:
    """locales/<lang>/course.po (the extensions' own strings) as the .mo Sphinx reads, under _build/locale/."""
    source = root / catalogs.LOCALES / language / catalogs.EXTENSION_CATALOG
    target = root / "_build" / "locale" / language / "LC_MESSAGES" / "course.mo"
    target.parent.mkdir(parents=True, exist_ok=True)
    catalog = catalogs.read_catalog(source, language) if source.exists() else Catalog(locale=language)
    with target.open("wb") as handle:
        write_mo(handle, catalog)


def _require_english_book(root: Path) -> Path:
    """_build/html, where the English build that every edition renders from must be."""
    html_root = root / "_build" / "html"
    if not (html_root / "index.html").exists():
        raise CourseError("_build/html has no English book yet: run `make book` first")
    return html_root


def build_side_by_side(languages: list[str], jobs: int, root: Path = ROOT) -> None:
    """Render the editions in processes of their own, `jobs` at a time: each edition is one Sphinx build, which
    uses one core, and the editions share nothing but the English build they read."""
    _require_english_book(root)
    extract_templates(root)  # once here, so that the editions' processes read it instead of each extracting
    running: list[tuple[str, subprocess.Popen[bytes]]] = []
    failed: list[str] = []
    for language in [*languages, None]:
        while running and (language is None or len(running) >= jobs):
            finished, process = running.pop(0)
            if process.wait() != 0:
                failed.append(finished)
        if language is not None:
            command = [sys.executable, "-m", "tools.editions", "build", "--language", language]
            running.append((language, subprocess.Popen(command, cwd=root)))
    if failed:
        raise CourseError(f"the build of {', '.join(failed)} failed (its output is above)")


def build(root: Path = ROOT, languages: list[str] | None = None) -> list[Path]:
    """Render each edition into _build/html/<lang>/ from the executions the English build cached."""
    html_root = _require_english_book(root)
    extracted = extract_templates(root)
    built = []
    for each in catalogs.editions(root):
        if languages and each.language not in languages:
            continue
        started = time.monotonic()
        folder = catalogs.catalog_dir(each.language, root)
        pages = {}
        for docname, template in extracted.items():
            path = folder / f"{docname}.po"
            catalog = catalogs.read_catalog(path, each.language) if path.exists() else None
            pages[docname] = {
                "revision": english_revision(docname, root),
                "untranslated": untranslated(template, catalog),
            }
        compile_extension_catalog(each.language, root)
        # Sphinx keeps each message catalog it has loaded for the process, and adds a later language's only as a
        # fallback: without this, the second edition would render in the first one's language.
        sphinx.locale.translators.clear()
        # Merged into Jupyter Book's own theme options: Colab and Binder open the edition's notebooks from its branch.
        theme = {"repository_branch": EDITIONS_BRANCH, "path_to_docs": each.language}
        out = html_root / each.language
        # Sphinx adds a page's words to the search index it finds and never takes the old ones out.
        (out / "searchindex.js").unlink(missing_ok=True)
        sphinx_build(
            "html",
            out,
            {
                "language": each.language,
                "html_search_language": each.search,
                "course_edition_pages": pages,
                "html_theme_options": theme,
            },
            root / "_build" / f".doctrees-{each.language}",
            root,
        )
        write_notebooks(out / "_sources", each.language, root)
        write_student_notebooks(out / STUDENT_FOLDER, each.language, root)
        built.append(out)
        print(f"built {out.relative_to(root)} in {time.monotonic() - started:.0f} s", flush=True)
    return built
