"""The status page's grid (_ext/status_grid.py) in headless Chromium, in English and in each edition.

- At 1280 px (a 1280x800 laptop screen) the whole grid, every lesson of the book, is at most two screens tall.
- At 412 px (a phone) the page is no wider than the screen, with a cell's details open too.
- axe-core finds no serious or critical violation, with the details of a cell closed and open.
- A cell's details open on hover, on keyboard focus and on a click or tap, and Escape closes them; a screen reader
  reads each symbol's words (its accessible name) and hears whether the details are open.
- Each edition shows the grid's words in its own language.

Screenshots go to _build/browser-screenshots/ for a person to look at.
"""

from __future__ import annotations

import pytest
from selenium import webdriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webelement import WebElement

from tests.browser.test_editions import SCRIPTS
from tests.browser.test_site import FAILING_IMPACTS, PHONE, SITE, console_errors, load, overflow, run_axe, set_viewport
from tests.test_status_grid import alternative_problems
from tools.course import ROOT, notebook_paths
from tools.editions.catalogs import Edition, editions

PAGE = "chapters/where-it-has-run.html"
LAPTOP_1280 = (1280, 800)
SCREENSHOTS = ROOT / "_build" / "browser-screenshots"
LESSONS = len(notebook_paths())


def _open_page(browser: webdriver.Chrome, site_url: str, size: tuple[int, int], page: str = PAGE) -> None:
    set_viewport(browser, size)
    load(browser, f"{site_url}/{page}")
    assert browser.find_elements(By.CSS_SELECTOR, ".run-grid-table"), f"{page} has no status grid"


def _screenshot(browser: webdriver.Chrome, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SCREENSHOTS / f"status-grid-{name}.png"))


def _is_open(browser: webdriver.Chrome, cell: WebElement) -> bool:
    detail = cell.find_element(By.CSS_SELECTOR, ".run-detail")
    return bool(browser.execute_script("return arguments[0].open", cell)) and detail.is_displayed()


def _serious(browser: webdriver.Chrome) -> list[str]:
    return [f"axe {v['impact']} {v['id']} ({v['help']}) at {v['nodes']}" for v in run_axe(browser)
            if v["impact"] in FAILING_IMPACTS]


def test_the_whole_grid_in_two_laptop_screens(browser: webdriver.Chrome, site_url: str) -> None:
    _open_page(browser, site_url, LAPTOP_1280)
    assert console_errors(browser, site_url) == []
    rows = browser.find_elements(By.CSS_SELECTOR, ".run-grid-table tbody th[scope=row]")
    assert len(rows) == LESSONS, f"{len(rows)} rows for {LESSONS} lessons"
    markup = browser.find_element(By.CSS_SELECTOR, ".run-grid").get_attribute("outerHTML")
    assert alternative_problems(markup) == [], "a symbol of the built page lacks its words"
    height = browser.execute_script("return document.querySelector('.run-grid-table').getBoundingClientRect().height")
    assert height <= 2 * LAPTOP_1280[1], f"the grid is {height:.0f} px tall: over two {LAPTOP_1280[1]} px screens"
    grid = browser.find_element(By.CSS_SELECTOR, ".run-grid-table")
    browser.execute_script("arguments[0].scrollIntoView()", grid)
    _screenshot(browser, "1280")


def test_no_overflow_on_a_phone(browser: webdriver.Chrome, site_url: str) -> None:
    _open_page(browser, site_url, PHONE)
    width, viewport, culprits = overflow(browser)
    assert width <= viewport, f"{width} px wide on a {viewport} px screen; sticking out: {culprits}"
    table = browser.execute_script("return document.querySelector('.run-grid-table').getBoundingClientRect().right")
    assert table <= viewport, f"the grid ends at {table:.0f} px on a {viewport} px screen (scrolled inside its box)"
    cell = browser.find_elements(By.CSS_SELECTOR, "details.run-cell")[0]
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", cell)
    cell.find_element(By.TAG_NAME, "summary").click()  # a tap
    assert _is_open(browser, cell), "a tap did not open the cell's details"
    box = browser.execute_script("return arguments[0].getBoundingClientRect().toJSON()",
                                 cell.find_element(By.CSS_SELECTOR, ".run-detail"))
    assert 0 <= box["left"] and box["right"] <= viewport, f"the details stick out of a phone's screen: {box}"
    assert overflow(browser)[0] <= viewport, "the open details widen the page"
    _screenshot(browser, "412-open")


def test_axe_finds_nothing_serious(browser: webdriver.Chrome, site_url: str) -> None:
    _open_page(browser, site_url, LAPTOP_1280)
    problems = _serious(browser)
    cell = browser.find_elements(By.CSS_SELECTOR, "details.run-cell")[0]
    cell.find_element(By.TAG_NAME, "summary").click()
    problems += [f"(details open) {problem}" for problem in _serious(browser)]
    assert not problems, "\n".join(problems)


def test_details_on_hover_focus_and_tap(browser: webdriver.Chrome, site_url: str) -> None:
    _open_page(browser, site_url, LAPTOP_1280)
    first, second = browser.find_elements(By.CSS_SELECTOR, "details.run-cell")[:2]
    summary = first.find_element(By.TAG_NAME, "summary")
    words = first.find_element(By.CSS_SELECTOR, ".run-alt").get_attribute("textContent")
    assert summary.accessible_name == words, f"a screen reader reads {summary.accessible_name!r}, not {words!r}"
    assert summary.aria_role in ("button", "DisclosureTriangle"), f"the cell reads as a {summary.aria_role}"

    ActionChains(browser).move_to_element(summary).perform()
    assert _is_open(browser, first), "hovering a cell does not show its details"
    _screenshot(browser, "1280-hover")
    ActionChains(browser).move_to_element(browser.find_element(By.CSS_SELECTOR, ".run-legend")).perform()
    assert not _is_open(browser, first), "the details stay after the pointer left"

    browser.execute_script("arguments[0].focus()", second.find_element(By.TAG_NAME, "summary"))
    assert _is_open(browser, second), "keyboard focus does not show a cell's details"
    second.find_element(By.TAG_NAME, "summary").send_keys(Keys.ESCAPE)
    assert not _is_open(browser, second), "Escape does not close the details"

    summary.click()
    ActionChains(browser).move_to_element(browser.find_element(By.CSS_SELECTOR, ".run-legend")).perform()
    assert _is_open(browser, first), "a click does not keep the details open"
    link = first.find_element(By.CSS_SELECTOR, ".run-detail a")
    assert link.is_displayed() and link.get_attribute("href").endswith(".json"), "no link to the record"
    summary.click()
    assert not _is_open(browser, first), "a second click does not close the details"


EDITIONS = editions()


@pytest.mark.parametrize("edition", EDITIONS, ids=[e.language for e in EDITIONS])
def test_each_edition_shows_the_grid_in_its_language(browser: webdriver.Chrome, site_url: str,
                                                      edition: Edition) -> None:
    if not (SITE / edition.language / PAGE).is_file():
        pytest.fail(f"no {edition.language} edition in {SITE}: `make book` builds it")
    _open_page(browser, site_url, PHONE, f"{edition.language}/{PAGE}")
    english = {"Lesson", "not yet run", "passed", "failed", "stale: older sources", "the run record"}
    shown = browser.execute_script("""
        const grid = document.querySelector('.run-grid');
        const words = '.run-alt, thead th, .run-summary li, .run-legend strong, .run-detail a';
        return Array.from(grid.querySelectorAll(words)).map(e => e.textContent.trim());""")
    untranslated = sorted(english & set(shown))
    assert not untranslated, f"{edition.language}: the grid shows English words: {untranslated}"
    summary = browser.find_element(By.CSS_SELECTOR, ".run-summary li").text
    assert summary.startswith("CUDA") and str(LESSONS) in summary and SCRIPTS[edition.language].search(summary), (
        f"{edition.language}: the summary line reads {summary!r}")
    width, viewport, culprits = overflow(browser)
    assert width <= viewport, f"{edition.language}: {width} px wide on a {viewport} px screen: {culprits}"
    assert not _serious(browser), f"{edition.language}: {_serious(browser)}"
    _screenshot(browser, f"{edition.language}-412")
