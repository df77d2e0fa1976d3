"""The PDF of `make pdf` (tools/editions/pdf.py): its outline, its internal links and code that stays on the page.

- The printer on a small page, in a temporary folder (a few seconds): the outline carries each heading's text
  (spaces kept where Chromium's own entry loses them), a link to a heading lands on that heading's page, and a
  long code line wraps instead of running off the sheet.
- The book's PDF and each edition's, when `make pdf` has written them (`make pdf` runs this file after printing;
  `make test` does not print the book, so there it checks the PDFs that exist): a sheet or more per page of the
  book, an outline entry for every chapter and lesson (in the edition's words), every page linked, and a sample of
  the internal links landing on the sheet of their target.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from tools.course import ROOT, read_notebook, toc_files
from tools.editions import catalogs, pdf

pytestmark = pytest.mark.integration  # a browser prints

# pypdf warns about the object count in Chromium's trailer ("exceeds defined trailer size"); the files read well.
logging.getLogger("pypdf").setLevel(logging.ERROR)

LONG_LINE = "x = " + " + ".join(f"term_{i}" for i in range(60)) + "  # END_OF_THE_LONG_LINE"
SMALL_PAGE = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>t</title></head><body>
<h1>A small book</h1>
<p><a href="#document-second">to the second page</a></p>
<h2 style="width: 12em">A heading long enough to wrap over two lines of the sheet</h2>
<div class="highlight"><pre>{LONG_LINE}</pre></div>
<span id="document-second"></span><section><h2>The second page</h2><p>Its text.</p></section>
</body></html>"""


def _titles(reader: PdfReader) -> list[tuple[int, str]]:
    """The outline as (depth, title), in reading order."""
    found: list[tuple[int, str]] = []

    def walk(entries: list[Any], depth: int) -> None:
        for entry in entries:
            if isinstance(entry, list):
                walk(entry, depth + 1)
            else:
                found.append((depth, entry.title))

    walk(reader.outline, 0)
    return found


def _links(reader: PdfReader, page_numbers: range) -> list[tuple[int, str]]:
    """The named destinations that the link annotations of these pages point at, with the page each is on."""
    found = []
    for number in page_numbers:
        for annotation in reader.pages[number].get("/Annots", []) or []:
            destination = annotation.get_object().get("/Dest")
            if destination is not None:
                found.append((number, str(destination)))
    return found


def _page_of(reader: PdfReader, name: str) -> int:
    return reader.get_destination_page_number(reader.named_destinations[name])


def test_the_printer_keeps_headings_links_and_long_code(tmp_path: Path) -> None:
    page = tmp_path / "index.html"
    page.write_text(SMALL_PAGE, encoding="utf-8")
    reader = PdfReader(pdf.print_page(page, tmp_path / "small.pdf"))
    assert len(reader.pages) == 2, "the second page of the book starts a new sheet"
    assert _titles(reader) == [(0, "A small book"), (1, "A heading long enough to wrap over two lines of the sheet"),
                               (1, "The second page")]
    [(on, target)] = _links(reader, range(len(reader.pages)))
    assert (on, _page_of(reader, target)) == (0, 1), f"the link to {target} does not land on the second page"
    text = re.sub(r"\s+", "", reader.pages[0].extract_text())
    assert "END_OF_THE_LONG_LINE" in text, "the long code line was cut off at the sheet's edge"


def test_a_page_that_does_not_match_its_outline_is_refused(tmp_path: Path) -> None:
    """retitle_outline on a PDF with more headings than the page it came from: a clear error, not a wrong title."""
    page = tmp_path / "index.html"
    page.write_text(SMALL_PAGE, encoding="utf-8")
    printed = pdf.print_page(page, tmp_path / "small.pdf")
    with pytest.raises(pdf.CourseError, match="the outline has 3 entries for 2 headings"):
        pdf.retitle_outline(printed, ["A small book", "The second page"])


def _source_title(entry: str, language: str | None = None) -> str:
    """A page's title as its source writes it (the first `# ` line), in an edition as its catalog translates it,
    as the book prints it."""
    path = ROOT / f"{entry}.md"
    if path.is_file():
        text = path.read_text(encoding="utf-8")
    else:
        notebook = read_notebook(ROOT / f"{entry}.ipynb")
        text = next("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
    title = next(line for line in text.splitlines() if line.startswith("# "))[2:]
    if language is not None:
        title = catalogs.translator(language, entry)(title)
    return title.replace("`", "").replace("'", "\u2019").strip()


LANGUAGES = [None, *(each.language for each in catalogs.editions())]


@pytest.mark.parametrize("language", LANGUAGES, ids=[language or "en" for language in LANGUAGES])
def test_the_book_pdf(language: str | None) -> None:
    path = pdf.pdf_path(language)
    if not path.is_file():
        pytest.skip(f"no {path.relative_to(ROOT)}: `make pdf` prints the book and its editions")
    reader = PdfReader(path)
    entries = toc_files()
    assert len(entries) <= len(reader.pages) < 1000, f"{len(reader.pages)} pages for {len(entries)} pages of the book"
    titles = [title for _, title in _titles(reader)]
    missing = [title for title in (_source_title(entry, language) for entry in entries) if title not in titles]
    assert not missing, f"the outline lacks {missing}"
    links = [(on, target) for on, target in _links(reader, range(len(reader.pages))) if target.startswith("/document-")]
    unlinked = sorted(set(entries[1:]) - {target.removeprefix("/document-") for _, target in links})
    assert not unlinked, f"no link in the PDF leads to {unlinked}"
    for on, target in links[:: max(1, len(links) // 8)]:  # a sample spread over the book
        entry = target.removeprefix("/document-")
        landed = _page_of(reader, target)
        # NFKC: the CJK fonts' glyphs extract as Kangxi radicals (⽤, U+2F64) where the text has the ideograph (用).
        text = " ".join(unicodedata.normalize("NFKC", reader.pages[landed].extract_text()).split())
        title = " ".join(unicodedata.normalize("NFKC", _source_title(entry, language)).split())[:20]
        assert title in text, f"page {on + 1}'s link to {entry} lands on page {landed + 1}, which lacks {title!r}"
