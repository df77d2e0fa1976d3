"""The built book, checked in a real headless Chromium as a reader sees it.

Run after the book is built (`make browser` does both). The site is served from _build/html on a
loopback port. On every page of the book, at a laptop's 1366x900 and a phone's 412x915:

- no console error (a failed load of an off-site resource is allowed: CI has no network);
- nothing from another host is needed: every script, style sheet, font and image comes from the
  build (MathJax included), and the page weight is reported (tests/browser/README.md);
- the page is no wider than the screen (long code, headings, tables and outputs wrap or scroll
  inside their own box);
- axe-core (vendored in tests/browser/vendor) finds no violation of serious or critical impact;
- every image has an alt text that says something (not empty, not a file name or a hash).

On a phone, the navigation and page-contents buttons open their menus. On notebook pages, the
outputs are there, figures load, the launch links point at the notebook, exercises are numbered
from 1 on each page, solutions are labelled "Show solution" without Colab's `# @title` line, and a
lesson with exercises links its student copy (Colab, Binder, and a download the site carries, with
every solution replaced by the stub); formulas render offline.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from myst_nb.core.config import ipywidgets_js_factory
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from tools import chromium
from tools.course import ROOT, CourseError, cell_source, notebook_paths, read_notebook, repository_url
from tools.editions.catalogs import editions
from tools.lesson import STUB
from tools.workshop.student import STUDENT_BRANCH, student_links

# COURSE_SITE: check a book built elsewhere (jupyter-book build --path-output DIR: DIR/_build/html).
SITE = Path(os.environ.get("COURSE_SITE", ROOT / "_build" / "html"))
# Each lesson's page, with its notebook: the reader's check of that page also checks what a lesson page must show.
LESSON_PAGES = {path.with_suffix(".html").as_posix(): path for path in (p.relative_to(ROOT) for p in notebook_paths())}
AXE = Path(__file__).parent / "vendor" / "axe.min.js"
REPORT = ROOT / "_build" / "browser-report.json"

LAPTOP = (1366, 900)
PHONE = (412, 915)
# Impacts that fail the test; the moderate and minor ones left are listed in README.md here.
FAILING_IMPACTS = {"serious", "critical"}
# What a page may weigh, every resource it loads counted (uncompressed, as served here).
PAGE_BUDGET_BYTES = 3_000_000


def _pages() -> list[str]:
    if not SITE.is_dir():
        return []
    pages = sorted(p.relative_to(SITE).as_posix() for p in SITE.rglob("*.html"))
    # genindex.html: not built (html_use_index is off); a copy left by an older build is not a page.
    # The translated editions (<language>/...) have a test of their own: test_editions.py.
    skipped = ("_static/", "_sources/", "_images/", *(f"{e.language}/" for e in editions()))
    return [p for p in pages if not p.startswith(skipped) and p != "genindex.html"]


PAGES = _pages()
# The one exception to "everything from the build": a page with an ipywidgets output loads the widget
# manager that myst-nb names (require.js and @jupyter-widgets/html-manager, 4.4 MB) from a CDN. Offline,
# the widget shows its saved text instead; README.md here says why it is not vendored.
WIDGET_MANAGER = set(ipywidgets_js_factory())
WEIGHTS: dict[str, int] = {}


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def site_url() -> Iterator[str]:
    if not (SITE / "index.html").is_file():
        pytest.fail(f"no built book in {SITE}: run `make book` first")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webdriver.Chrome]:
    try:
        options = chromium.options(tmp_path_factory.mktemp("chromium-profile"), "--hide-scrollbars")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = chromium.start(options, timeout_seconds=60)
    except CourseError as missing:
        pytest.fail(str(missing))
    # Every page fetches all it needs, so the page weight counts what a first visit loads.
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    yield driver
    driver.quit()
    if WEIGHTS:
        REPORT.write_text(json.dumps({"page_bytes": WEIGHTS}, indent=1) + "\n")


def set_viewport(driver: webdriver.Chrome, size: tuple[int, int]) -> None:
    """Make the layout viewport exactly `size` CSS pixels (the window adds no chrome in headless mode)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": size[0] < 600,
    })


def load(driver: webdriver.Chrome, url: str) -> None:
    driver.get(url)
    WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.readyState") == "complete")


def console_errors(driver: webdriver.Chrome, site: str) -> list[str]:
    """Severe console messages, less failed loads of resources from other hosts."""
    errors = []
    for entry in driver.get_log("browser"):
        message = entry["message"]
        if entry["level"] != "SEVERE":
            continue
        offsite_load = "Failed to load resource" in message or "net::ERR_" in message
        if offsite_load and not message.startswith(site):
            continue
        errors.append(message)
    return errors


def overflow(driver: webdriver.Chrome) -> tuple[int, int, list[str]]:
    """The document's scroll width, the viewport width, and the elements that stick out."""
    return driver.execute_script("""
        const vw = document.documentElement.clientWidth;
        const culprits = [];
        for (const el of document.querySelectorAll('.bd-main *')) {
          const r = el.getBoundingClientRect();
          if (r.width > 0 && r.right > vw + 1 && culprits.length < 5) {
            let inner = false;  // inside a box that scrolls: fine
            for (let p = el.parentElement; p; p = p.parentElement) {
              const o = getComputedStyle(p).overflowX;
              if (o === 'auto' || o === 'scroll' || o === 'hidden') { inner = true; break; }
            }
            if (!inner) culprits.push(el.tagName.toLowerCase() + '.' + el.className + ': '
                                      + (el.textContent || '').trim().slice(0, 60));
          }
        }
        return [document.documentElement.scrollWidth, vw, culprits];
    """)


def run_axe(driver: webdriver.Chrome) -> list[dict]:
    if not driver.execute_script("return typeof window.axe !== 'undefined'"):
        driver.execute_script(AXE.read_text(encoding="utf-8"))
    result = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        axe.run(document, {resultTypes: ['violations']})
           .then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                  nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))))
           .catch(e => done([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]));
    """)
    return result


def resources(driver: webdriver.Chrome) -> list[dict]:
    return driver.execute_script("""
        const nav = performance.getEntriesByType('navigation').map(e => ({name: e.name, bytes: e.decodedBodySize}));
        const res = performance.getEntriesByType('resource').map(e => ({name: e.name, bytes: e.decodedBodySize}));
        return nav.concat(res);
    """)


BAD_ALT = re.compile(r"(^$|\.(png|jpe?g|svg|gif|webp)$|[0-9a-f]{16,}|^[\w.-]+$)", re.IGNORECASE)


def test_every_page_for_a_reader(browser: webdriver.Chrome, site_url: str) -> None:
    """Console, off-site loads, width at laptop and phone, axe, alt texts and weight, page by page; on a lesson's
    page, also what a lesson page must show (notebook_page_problems), read from the same load."""
    assert PAGES, "no pages found in the built book"
    problems = [f"{page}: not in the built book" for page in sorted(set(LESSON_PAGES) - set(PAGES))]
    for page in PAGES:
        problems += reader_problems(browser, site_url, page)
    report = "\n".join(f"{page}: {weight:,} bytes" for page, weight in WEIGHTS.items())
    print(f"\nPage weight (every resource, uncompressed):\n{report}")
    assert not problems, "\n".join(problems)


def reader_problems(browser: webdriver.Chrome, site_url: str, page: str) -> list[str]:
    """What a reader would meet on one page (see the module's docstring), worded for the author."""
    problems: list[str] = []
    set_viewport(browser, LAPTOP)
    load(browser, f"{site_url}/{page}")
    # MathJax typesets after load; let it finish before measuring and auditing.
    browser.execute_async_script(chromium.MATHJAX_TYPESET)
    problems += [f"{page}: console: {e}" for e in console_errors(browser, site_url)]
    loaded = resources(browser)
    offsite = sorted({r["name"] for r in loaded if not r["name"].startswith(site_url)} - WIDGET_MANAGER)
    problems += [f"{page}: loads {url} from another host" for url in offsite]
    WEIGHTS[page] = sum(r["bytes"] for r in loaded)
    if WEIGHTS[page] > PAGE_BUDGET_BYTES:
        problems.append(f"{page}: weighs {WEIGHTS[page]:,} bytes, over the budget of {PAGE_BUDGET_BYTES:,}")

    images = browser.execute_script(
        "return [...document.querySelectorAll('article.bd-article img')].map(i => [i.src, i.getAttribute('alt')])")
    for source, alt in images:
        alt = (alt or "").strip()
        if BAD_ALT.search(alt) or len(alt.split()) < 3:
            problems.append(f"{page}: image {source} has no real alt text: {alt!r}")

    for violation in run_axe(browser):
        if violation["impact"] in FAILING_IMPACTS:
            problems.append(f"{page}: axe {violation['impact']} {violation['id']} ({violation['help']}) "
                            f"at {violation['nodes']}")
    if page in LESSON_PAGES:
        problems += notebook_page_problems(browser, site_url, LESSON_PAGES[page])

    for size in (LAPTOP, PHONE):
        set_viewport(browser, size)
        time.sleep(0.1)
        scroll_width, viewport, culprits = overflow(browser)
        if scroll_width > viewport:
            problems.append(f"{page}: {scroll_width} px wide on a {size[0]} px screen; sticking out: {culprits}")
    return problems


@pytest.mark.parametrize("toggle,dialog", [(".primary-toggle", "#pst-primary-sidebar-modal"),
                                           (".secondary-toggle", "#pst-secondary-sidebar-modal")],
                         ids=["navigation", "page-contents"])
def test_phone_menus_open(browser: webdriver.Chrome, site_url: str, toggle: str, dialog: str) -> None:
    set_viewport(browser, PHONE)
    load(browser, f"{site_url}/notebooks/platforms/cuda.html")
    buttons = [b for b in browser.find_elements(By.CSS_SELECTOR, toggle) if b.is_displayed()]
    assert len(buttons) == 1, f"expected one visible {toggle} on a phone, found {len(buttons)}"
    buttons[0].click()
    WebDriverWait(browser, 5).until(
        lambda d: d.execute_script(f"return document.querySelector('{dialog}').open"),
        f"{toggle} did not open {dialog} on a {PHONE[0]} px screen",
    )
    menu = browser.find_element(By.CSS_SELECTOR, dialog)
    links = [a for a in menu.find_elements(By.CSS_SELECTOR, "a") if a.is_displayed()]
    assert menu.is_displayed() and links, f"{dialog} opened but shows no links"
    rect = browser.execute_script("return arguments[0].getBoundingClientRect().toJSON()", menu)
    assert rect["width"] > 150 and rect["left"] < PHONE[0] and rect["right"] > 0, f"{dialog} is off screen: {rect}"
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    browser.execute_script(f"const d = document.querySelector('{dialog}'); if (d.open) d.close();")


def test_laptop_sidebar_toggle_hides_the_sidebar(browser: webdriver.Chrome, site_url: str) -> None:
    set_viewport(browser, LAPTOP)
    load(browser, f"{site_url}/notebooks/platforms/cuda.html")
    sidebar = browser.find_element(By.CSS_SELECTOR, "#pst-primary-sidebar")
    assert sidebar.is_displayed(), "the navigation sidebar is not shown on a laptop"
    [button] = [b for b in browser.find_elements(By.CSS_SELECTOR, ".primary-toggle") if b.is_displayed()]
    button.click()
    WebDriverWait(browser, 5).until(lambda d: "pst-sidebar-hidden" in (sidebar.get_attribute("class") or ""),
                                    "the sidebar button did not hide the sidebar on a laptop")


def test_index_loads_cleanly(browser: webdriver.Chrome, site_url: str) -> None:
    set_viewport(browser, LAPTOP)
    load(browser, f"{site_url}/index.html")
    assert "PyTorch 2.12" in browser.title
    assert console_errors(browser, site_url) == []
    pages_linking_genindex = [p for p in PAGES if "genindex.html" in (SITE / p).read_text(encoding="utf-8")]
    assert not pages_linking_genindex, f"the empty genindex page is linked from {pages_linking_genindex}"
    assert not browser.find_elements(By.CSS_SELECTOR, "#pst-header *"), "the near-empty top bar is back"


def test_formulas_render_offline(browser: webdriver.Chrome, site_url: str) -> None:
    with_math = [p for p in PAGES if 'class="math' in (SITE / p).read_text(encoding="utf-8")]
    assert with_math, "no page has a formula: this test checks nothing"
    for page in with_math:
        set_viewport(browser, LAPTOP)
        load(browser, f"{site_url}/{page}")
        rendered = browser.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const count = () => done(document.querySelectorAll('mjx-container').length);
            if (!window.MathJax) { done(-1); return; }
            const ready = MathJax.startup && MathJax.startup.promise;
            (ready ? MathJax.startup.promise : Promise.resolve()).then(count, count);
        """)
        expected = len(browser.find_elements(By.CSS_SELECTOR, ".math"))
        assert rendered == expected, f"{page}: {rendered} of {expected} formulas rendered by MathJax (-1: none loaded)"
        sources = [r["name"] for r in resources(browser) if "mathjax" in r["name"].lower()]
        assert sources and all(s.startswith(site_url) for s in sources), f"{page}: MathJax from {sources}"


# What notebook_page_problems reads from a lesson's page, in one round trip (an element at a time took a
# WebDriver call for each of a page's hundred links).
LESSON_PAGE_FACTS = """
    const text = (el) => el ? el.textContent : '';
    return {
      outputs: document.querySelectorAll('div.cell_output').length,
      figures: [...document.querySelectorAll('div.cell_output img')].map(img => img.naturalWidth),
      solutions: [...document.querySelectorAll('div.cell.tag_solution')].map(cell => ({
        label: text(cell.querySelector('summary')), code: text(cell.querySelector('.cell_input pre'))})),
      exercises: [...document.querySelectorAll('.admonition-title > .caption-number')].map(text),
      links: [...document.querySelectorAll('a')].map(a => a.href || ''),
      student: [...document.querySelectorAll('p.student-copy-line a')].map(a => a.href),
    };
"""


def notebook_page_problems(browser: webdriver.Chrome, site_url: str, notebook: Path) -> list[str]:
    """What a lesson's page must show (the module's docstring), on the page as loaded, worded for the author."""
    page = notebook.with_suffix(".html").as_posix()
    facts = browser.execute_script(LESSON_PAGE_FACTS)
    problems: list[str] = []
    if not facts["outputs"]:
        problems.append(f"{page} shows no executed outputs")
    cells = read_notebook(ROOT / notebook)["cells"]
    # A lesson cell that draws at top level (not only inside an accelerator branch) must show a figure;
    # the stamped setup cell only sets the shared style.
    lesson = [c for c in cells if c["cell_type"] == "code"
              and not any(t.startswith("stamp:") for t in c.get("metadata", {}).get("tags", []))]
    figures = facts["figures"]
    if any(re.search(r"^\S.*\bplt\.", "".join(c["source"]), re.MULTILINE) for c in lesson) and not figures:
        problems.append(f"{page} draws with matplotlib but shows no figure")
    if not all(width > 0 for width in figures):
        problems.append(f"{page}: a figure does not load")

    solutions = [c for c in cells if "solution" in c.get("metadata", {}).get("tags", [])]
    shown = facts["solutions"]
    if len(shown) != len(solutions):
        problems.append(f"{page}: {len(solutions)} solution cells, {len(shown)} on the page")
    for cell in shown:
        if "Show solution" not in cell["label"]:
            problems.append(f"{page}: a solution is labelled {' '.join(cell['label'].split())!r}")
        if cell["code"].lstrip().startswith("# @title"):
            problems.append(f"{page}: a solution opens on Colab's form title")

    numbers = [n.strip() for n in facts["exercises"] if "Exercise" in n]
    if numbers != [f"Exercise {i}" for i in range(1, len(numbers) + 1)]:
        problems.append(f"{page}: exercises are not numbered from 1 on the page: {numbers}")

    links = facts["links"]
    repo_path = repository_url().removeprefix("https://github.com/")
    colab = f"https://colab.research.google.com/github/{repo_path}/blob/main/{notebook.as_posix()}"
    if colab not in links:
        problems.append(f"{page} has no Colab link to {notebook}")
    binder = [link for link in links if link.startswith("https://mybinder.org/v2/gh/")
              and f"/{STUDENT_BRANCH}?" not in link]
    if not binder or not all(repo_path in link and notebook.as_posix() in link for link in binder):
        problems.append(f"{page} has no Binder link to {notebook}: {binder}")

    hrefs = facts["student"]
    if not solutions:
        return problems + ([f"{page} links a student copy but has no exercise"] if hrefs else [])
    # A lesson with exercises links its student copy, and the site carries the file.
    expected = student_links(notebook.with_suffix("").as_posix())
    if hrefs[:2] != [expected["colab"], expected["binder"]]:
        return [*problems, f"{page}: student copy links {hrefs}"]
    if hrefs[2:3] != [f"{site_url}/{expected['download']}"]:
        return [*problems, f"{page}: the download points at {hrefs[2:3]}"]
    copy = read_notebook(SITE / expected["download"])
    if [cell_source(c) for c in copy["cells"] if "solution" in c["metadata"].get("tags", [])] != \
            [STUB] * len(solutions):
        problems.append(f"{page}: the downloaded copy still holds solutions")
    return problems


# A lesson page broken in the browser, one way per check of notebook_page_problems, and the problem each must report.
BROKEN_LESSON = "notebooks/mx-quantization/mx-accuracy.ipynb"  # a figure drawn at top level, an exercise
BREAKS = {
    "document.querySelector('div.cell.tag_solution summary').textContent = 'Show code'":
        "a solution is labelled 'Show code'",
    "document.querySelector('div.cell.tag_solution .cell_input pre').textContent = '# @title Solution'":
        "a solution opens on Colab's form title",
    "[...document.querySelectorAll('.caption-number')].find(n => n.textContent.includes('Exercise'))"
    ".textContent = 'Exercise 2 '": "exercises are not numbered from 1 on the page: ['Exercise 2']",
    "document.querySelectorAll('a[href*=\"colab.research.google.com\"]').forEach(a => a.href = 'https://example.org/')":
        "has no Colab link to notebooks/mx-quantization/mx-accuracy.ipynb",
    "document.querySelector('div.cell_output img').src = 'gone.png'": "a figure does not load",
}


def test_a_broken_lesson_page_is_reported(browser: webdriver.Chrome, site_url: str) -> None:
    """Each check of a lesson's page fails on a page broken for it (the page is broken in the browser, after its
    load), and a page with its outputs removed shows neither outputs nor figures."""
    page = Path(BROKEN_LESSON).with_suffix(".html").as_posix()
    set_viewport(browser, LAPTOP)
    load(browser, f"{site_url}/{page}")
    assert notebook_page_problems(browser, site_url, Path(BROKEN_LESSON)) == [], "the unbroken page must pass"
    for script in BREAKS:
        browser.execute_script(script)
    WebDriverWait(browser, 10).until(lambda d: d.execute_script(
        "return document.querySelector('div.cell_output img').complete"))
    problems = "\n".join(notebook_page_problems(browser, site_url, Path(BROKEN_LESSON)))
    assert [expected for expected in BREAKS.values() if expected not in problems] == [], problems
    assert "student copy links" in problems, "the Colab student copy's link was broken too"
    browser.execute_script("document.querySelectorAll('div.cell_output').forEach(o => o.remove())")
    problems = "\n".join(notebook_page_problems(browser, site_url, Path(BROKEN_LESSON)))
    assert f"{page} shows no executed outputs" in problems and "draws with matplotlib but shows no figure" in problems
