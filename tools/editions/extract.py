"""The English messages of every page, the extensions and the quizzes, and their merge into every edition's
catalogs (`update`): new messages arrive empty, changed ones fuzzy with their previous English, gone ones are
dropped.

The pages' messages come from Sphinx's gettext builder; the merge is Babel's `Catalog.update`, the call
sphinx-intl makes. sphinx-intl 2.4.0 itself (`sphinx-intl update -p <pots> -w 0 --no-obsolete`, tried on
2026-12-02) is not used: on the same .pot files it dropped the figures' alt texts from 16 catalogs (8 a language:
they come from the notebooks' cell metadata, not from the gettext builder) and stamped a new POT-Creation-Date into
each catalog it changed, and the extensions' and quizzes' catalogs, the untranslatable messages filled in and the
catalogs of removed pages would still need the code below. Nor was it faster: its merge took 2.5 s, this one 0.8 s.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po

from tools.author import quiz
from tools.course import ROOT, CourseError, notebook_paths, read_notebook
from tools.editions import catalogs
from tools.editions.markup import has_words
from tools.editions.sphinx_build import sphinx_build

# The English extraction, kept per digest of the sources: the static step's gate, the editions' builds and the tests
# read one extraction of the sources as they are (the book's strict build renders, it does not extract).
ENGLISH = Path("_build") / "english"
NOT_SOURCES = {"_build", "locales", "tests", "__pycache__"}  # and every folder whose name starts with a dot
EXTENSION_SOURCES = ["tools/records/status.py"]  # modules outside _ext/ whose `_()` strings the extensions show


def sources_digest(root: Path = ROOT) -> str:
    """A digest of every file the English could come from: the repository but its build outputs, catalogs, tests and
    hidden folders. Wider than what Sphinx reads on purpose: a change elsewhere costs an extraction, never a stale one.
    """
    digest = hashlib.sha256()
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders if not name.startswith(".") and name not in NOT_SOURCES)
        for name in sorted(files):
            path = Path(folder) / name
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def english_folder(root: Path = ROOT) -> Path:
    """The folder of .pot files for the sources as they are: extracted by Sphinx's gettext builder (nothing executed)
    the first time, read from _build/english/<digest>/ after that. Built aside and renamed into place, so a process
    reading the same digest beside it sees a whole extraction or none."""
    digest = sources_digest(root)
    cache = root / ENGLISH
    out = cache / digest
    if not out.is_dir():
        scratch = cache / f"{digest}.{os.getpid()}"
        shutil.rmtree(scratch, ignore_errors=True)
        sphinx_build(
            "gettext",
            scratch,
            {"nb_execution_mode": "off", "gettext_uuid": False, "gettext_location": False},
            scratch / ".doctrees",
            root,
        )
        try:
            scratch.rename(out)
        except OSError:  # another process renamed the same extraction into place first
            shutil.rmtree(scratch, ignore_errors=True)
        for older in cache.iterdir():
            if older.name != digest and not older.name.startswith(f"{digest}."):
                shutil.rmtree(older, ignore_errors=True)
    return out


def extract_templates(root: Path = ROOT) -> dict[str, Catalog]:
    """Every page's English messages by docname, nothing executed (one extraction per state of the sources)."""
    found = templates(english_folder(root))
    # A figure's alt text lies in its cell's metadata, and the figure only in the executed outputs: add it here.
    for path in notebook_paths(root):
        docname = path.relative_to(root).with_suffix("").as_posix()
        for alt in figure_alts(read_notebook(path)):
            found.setdefault(docname, Catalog()).add(alt, locations=[(f"{docname}.ipynb", 0)])
    return found


def figure_alts(notebook: dict[str, Any]) -> list[str]:
    """The alt texts the notebook's figures get from their cells' metadata (myst-nb's `mystnb.image.alt`)."""
    alts = []
    for cell in notebook["cells"]:
        alt = cell.get("metadata", {}).get("mystnb", {}).get("image", {}).get("alt")
        if alt:
            alts.append(str(alt))
    return alts


def templates(folder: Path) -> dict[str, Catalog]:
    """The extracted catalogs by docname."""
    found: dict[str, Catalog] = {}
    for pot in sorted(folder.rglob("*.pot")):
        docname = pot.relative_to(folder).with_suffix("").as_posix()
        with pot.open("rb") as handle:
            found[docname] = read_po(handle)
    if not found:
        raise CourseError(f"{folder}: the gettext build wrote no catalog")
    return found


def extension_template(root: Path = ROOT) -> Catalog:
    """The strings the book's extensions generate (each `_()` in _ext/*.py and EXTENSION_SOURCES)."""
    template = Catalog(project=catalogs.PROJECT)
    for path in sorted((root / "_ext").glob("*.py")) + [root / source for source in EXTENSION_SOURCES]:
        for lineno, message, _comments, _context in extract_from_file("python", str(path), keywords={"_": None}):
            template.add(message, locations=[(path.relative_to(root).as_posix(), lineno)])
    return template


def quiz_template(root: Path = ROOT) -> Catalog:
    """Every quiz question's text, choices and reason (quizzes/*.yml), and the words of the quiz runtime."""
    template = Catalog(project=catalogs.PROJECT)
    for each in quiz.quizzes(root):
        where = [(each.source.relative_to(root).as_posix(), 0)]
        for question in each.questions:
            for text in (question.text, *question.choices, question.reason):
                template.add(text, locations=where)
    for label in quiz.runtime_labels(root).values():
        template.add(label, locations=[("tools/snippets/quiz.py", 0)])
    return template


def all_templates(root: Path = ROOT) -> dict[str, Catalog]:
    """Every catalog an edition needs, by name: one per page (docname), the extensions' and the quizzes'."""
    return {
        **extract_templates(root),
        catalogs.EXTENSION_PAGE: extension_template(root),
        catalogs.QUIZ_PAGE: quiz_template(root),
    }


def update(root: Path = ROOT) -> list[Path]:
    """Merge the fresh English into every edition's catalogs; return the files written or removed."""
    extracted = all_templates(root)
    touched: list[Path] = []
    for each in catalogs.editions(root):
        folder = catalogs.catalog_dir(each.language, root)
        for docname, template in extracted.items():
            path = catalogs.catalog_path(each.language, docname, root)
            if path.exists():
                catalog = catalogs.read_catalog(path, each.language)
            else:
                catalog = Catalog(locale=each.language, project=catalogs.PROJECT)
            catalog.update(template, update_header_comment=False, update_creation_date=False)
            for message in catalog:
                if message.id and not message.string and not has_words(str(message.id)):
                    message.string = message.id  # nothing to translate: numbers, times, code, links
            catalog.project = catalogs.PROJECT
            catalog.language_team = each.name
            catalogs.write_catalog(path, catalog)
            touched.append(path)
        for stale in sorted(folder.rglob("*.po")):
            docname = stale.relative_to(folder).with_suffix("").as_posix()
            if docname not in extracted:
                stale.unlink()
                touched.append(stale)
    return touched
