"""`make pdf`: the English book as one PDF, from the same executed run as the site.

    python -m tools.editions.pdf [--editions]     _build/pdf/pytorch-2.12-course.pdf [and -<language>.pdf]

The route, and why: Jupyter Book's singlehtml builder renders every page of _toc.yml into one HTML page from the
execution cache that the notebooks step filled (the same run the site shows; nothing is executed), and Debian's
headless Chromium, the one the browser check drives, prints that page through the DevTools protocol's
`Page.printToPDF` with `generateDocumentOutline`: the headings become the PDF's outline (bookmarks), and the
page's own links (`#document-...`, `#section`) become links inside the PDF. A print style sheet
(print.css beside this module) hides the navigation, starts each page of the book on a new sheet and wraps long
code lines instead of cutting them off. With `--editions` each translated edition is printed the same way, in
its language (Debian's Noto CJK fonts draw it). Nothing is downloaded at build time. Not LaTeX: no TeX is installed on
the course's machines (Jupyter Book's pdflatex route needs TeX Live, over a gigabyte), and Jupyter Book's own
pdfhtml builder prints with a Chromium that pyppeteer downloads when it first runs.
"""

from __future__ import annotations

import argparse
import base64
import logging
import sys
import time
from pathlib import Path
from typing import Any

import sphinx.locale

from tools import chromium
from tools.course import ROOT, CourseError
from tools.editions import catalogs
from tools.editions.build import compile_extension_catalog
from tools.editions.sphinx_build import sphinx_build

PDF = ROOT / "_build" / "pdf" / "pytorch-2.12-course.pdf"
SINGLE_PAGE = ROOT / "_build" / "singlehtml"
PRINT_CSS = Path(__file__).with_name("print.css")
# A4, margins in inches; the footer carries the page number.
PAGE = {"paperWidth": 8.27, "paperHeight": 11.69, "marginTop": 0.5, "marginBottom": 0.6, "marginLeft": 0.5,
        "marginRight": 0.5}
FOOTER = ('<div style="font-size:8px;width:100%;text-align:center;color:#555">'
          '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')


def pdf_path(language: str | None = None) -> Path:
    """Where `make pdf` writes the English book (language None) or an edition's."""
    return PDF if language is None else PDF.with_name(f"{PDF.stem}-{language}.pdf")


def build_single_page(language: str | None = None, root: Path = ROOT) -> Path:
    """The whole book as one HTML page (Jupyter Book's singlehtml builder, strict), from the execution cache, in
    English or in an edition's language (its catalogs under locales/, as tools/editions/build.py renders it)."""
    out = SINGLE_PAGE if language is None else SINGLE_PAGE.with_name(f"{SINGLE_PAGE.name}-{language}")
    overrides: dict[str, Any] = {}
    if language is not None:
        compile_extension_catalog(language, root)
        overrides["language"] = language
    # Sphinx keeps the catalogs it has loaded for the process: a second build would speak the first one's language.
    sphinx.locale.translators.clear()
    sphinx_build("singlehtml", out, overrides, out / ".doctrees", root)
    return out / "index.html"


def print_page(page: Path, pdf: Path, css: str = PRINT_CSS.read_text(encoding="utf-8")) -> Path:
    """Print one HTML page to `pdf` in headless Chromium, with the print style sheet `css` and an outline."""
    driver = chromium.start(chromium.options(), timeout_seconds=300)
    try:
        driver.get(page.resolve().as_uri())
        driver.execute_script("const s = document.createElement('style'); s.textContent = arguments[0];"
                              "document.head.appendChild(s);", css)
        # MathJax typesets after the load; print once it has finished.
        driver.execute_async_script(chromium.MATHJAX_TYPESET)
        titles = _heading_titles(driver)
        printed = driver.execute_cdp_cmd("Page.printToPDF", {
            **PAGE, "printBackground": True, "displayHeaderFooter": True, "headerTemplate": "<span></span>",
            "footerTemplate": FOOTER, "generateTaggedPDF": True, "generateDocumentOutline": True,
        })
    finally:
        driver.quit()
    pdf.parent.mkdir(parents=True, exist_ok=True)
    pdf.write_bytes(base64.b64decode(printed["data"]))
    retitle_outline(pdf, titles)
    return pdf


def _heading_titles(driver: Any) -> list[str]:
    """The text of every heading the printed page shows, in order: the entries of Chromium's outline."""
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    titles: list[str] = driver.execute_script("""
        return Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6, [role=heading]'))
          .filter(e => e.getClientRects().length > 0)
          .map(e => e.innerText.replace(/\\s+/g, ' ').trim()).filter(t => t);""")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    return titles


def outline_items(outline: Any) -> list[Any]:
    """The entries of a PDF outline (its /Outlines dictionary), in reading order, nested entries after their
    parent."""
    found = []

    def walk(item: Any) -> None:
        while item is not None:
            item = item.get_object()
            found.append(item)
            if "/First" in item:
                walk(item["/First"])
            item = item.get("/Next")

    if "/First" in outline:
        walk(outline["/First"])
    return found


def retitle_outline(pdf: Path, titles: list[str]) -> None:
    """Give each outline entry its heading's text. Chromium writes an entry's text from the heading's painted
    lines, with no space where a long heading wraps ("controlflow") and a wrapped heading's text twice; the
    entries follow the page's headings one for one, so the page's own text replaces it."""
    from pypdf import PdfWriter
    from pypdf.generic import NameObject, TextStringObject

    writer = PdfWriter(clone_from=str(pdf))
    items = outline_items(writer.root_object["/Outlines"].get_object())
    if len(items) != len(titles):
        raise CourseError(f"{pdf}: the outline has {len(items)} entries for {len(titles)} headings on the page")
    for item, title in zip(items, titles, strict=True):
        item[NameObject("/Title")] = TextStringObject(title)
    with pdf.open("wb") as handle:
        writer.write(handle)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.editions.pdf", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--editions", action="store_true", help="print each translated edition too (locales/)")
    args = parser.parse_args(argv)
    # pypdf warns that Chromium's trailer undercounts the objects ("exceeds defined trailer size"); it reads them all.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    languages: list[str | None] = [None]
    if args.editions:
        languages += [each.language for each in catalogs.editions()]
    for language in languages:
        try:
            started = time.monotonic()
            page = build_single_page(language)
            built = time.monotonic()
            pdf = print_page(page, pdf_path(language))
        except CourseError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        size = pdf.stat().st_size / 2**20
        print(f"wrote {pdf.relative_to(ROOT)} ({size:.1f} MiB): single page built in {built - started:.0f} s, "
              f"printed in {time.monotonic() - built:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
