"""The translated editions in headless Chromium, as their readers see them.

For each edition (tools/editions/), a few pages (the home page, a chapter, a notebook, the status page) get the
checks every English page gets (test_site.py: console, off-site loads, width at laptop and phone, axe, alt texts),
and then:

- the page declares its language (`<html lang>`), and its text is drawn in a CJK font that the machine has;
- the language switcher leads to the same page in every edition, and back;
- a translated page says which English revision it was translated from;
- the search page finds a word of the edition's language;
- a screenshot at each width goes to _build/browser-screenshots/ for a person to look at.
"""

from __future__ import annotations

import re

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser.test_site import LAPTOP, PHONE, SITE, load, reader_problems, set_viewport
from tools.course import ROOT
from tools.editions.catalogs import Edition, editions, glossary

PAGES = ["index", "chapters/graphs", "notebooks/graphs/cond-in-graphs", "chapters/where-it-has-run"]
SCREENSHOTS = ROOT / "_build" / "browser-screenshots"
# The font each edition's text must be drawn in on this machine (Debian's fonts-noto-cjk, which .ci/run installs).
FONTS = {"zh_CN": "Noto Sans CJK SC", "ko": "Noto Sans CJK KR"}
# The characters each edition writes in: Han ideographs, Hangul syllables.
SCRIPTS = {"zh_CN": re.compile(r"[\u4e00-\u9fff]"), "ko": re.compile(r"[\uac00-\ud7a3]")}
EDITIONS = editions()


@pytest.mark.parametrize("edition", EDITIONS, ids=[e.language for e in EDITIONS])
def test_edition_pages_for_a_reader(browser: webdriver.Chrome, site_url: str, edition: Edition) -> None:
    if not (SITE / edition.language / "index.html").is_file():
        pytest.fail(f"no {edition.language} edition in {SITE}: `make book` builds it")
    problems: list[str] = []
    for page in PAGES:
        path = f"{edition.language}/{page}.html"
        problems += reader_problems(browser, site_url, path)
        lang = browser.find_element(By.TAG_NAME, "html").get_attribute("lang")
        if lang != edition.html_lang:
            problems.append(f"{path}: <html lang={lang!r}>, not {edition.html_lang!r}")
        sample = browser.find_element(By.CSS_SELECTOR, "article.bd-article h1").text
        drawn = browser.execute_script("return document.fonts.check(arguments[0], arguments[1])",
                                       f'16px "{FONTS[edition.language]}"', sample)
        family = browser.execute_script("return getComputedStyle(document.body).fontFamily")
        if not drawn or FONTS[edition.language] not in family:
            problems.append(f"{path}: its title {sample!r} is not drawn in {FONTS[edition.language]} ({family})")
        text = browser.find_element(By.CSS_SELECTOR, "article.bd-article").text
        written = {language: len(script.findall(text)) for language, script in SCRIPTS.items()}
        if written[edition.language] <= max(written.values()) // 2 or written[edition.language] < 50:
            problems.append(f"{path}: not written in the edition's script (characters per script: {written})")
        if not browser.find_elements(By.CSS_SELECTOR, ".edition-revision"):
            problems.append(f"{path}: no line saying which English revision it translates")
        captions = [e.get_attribute("textContent") for e in browser.find_elements(By.CSS_SELECTOR, ".caption-text")]
        english = [caption for caption in captions if not SCRIPTS[edition.language].search(caption)]
        if not captions or english:
            problems.append(f"{path}: the navigation's section captions are not translated: {english or 'none found'}")
        for size in (LAPTOP, PHONE):
            set_viewport(browser, size)
            load(browser, f"{site_url}/{path}")  # laid out afresh at this width, as a reader opening it would see it
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            browser.save_screenshot(str(SCREENSHOTS / f"{edition.language}-{size[0]}-{page.replace('/', '-')}.png"))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", PAGES)
def test_switcher_moves_between_the_same_page(browser: webdriver.Chrome, site_url: str, page: str) -> None:
    """From English to each edition and back, by the switcher's links, landing on the same page each time."""
    set_viewport(browser, PHONE)
    for edition in EDITIONS:
        english, translated = f"{site_url}/{page}.html", f"{site_url}/{edition.language}/{page}.html"
        load(browser, english)
        browser.find_element(By.CSS_SELECTOR, f'.edition-switcher a[hreflang="{edition.html_lang}"]').click()
        _wait_for(browser, translated)
        current = browser.find_element(By.CSS_SELECTOR, ".edition-switcher .edition-current").text
        assert current == edition.name
        browser.find_element(By.CSS_SELECTOR, '.edition-switcher a[hreflang="en"]').click()
        _wait_for(browser, english)


def _wait_for(browser: webdriver.Chrome, url: str) -> None:
    WebDriverWait(browser, 30).until(lambda d: d.current_url.split("#")[0] == url, f"never reached {url}")


@pytest.mark.parametrize("edition", EDITIONS, ids=[e.language for e in EDITIONS])
def test_search_finds_a_word_of_the_edition(browser: webdriver.Chrome, site_url: str, edition: Edition) -> None:
    """The edition's word for "tensor" (its glossary's) is on many pages; the search page must list some."""
    word = glossary(edition.language)["tensor"]
    set_viewport(browser, LAPTOP)
    load(browser, f"{site_url}/{edition.language}/search.html?q={word}")
    # The search page says how many pages it found when it has finished (in the edition's language).
    WebDriverWait(browser, 30).until(lambda d: d.execute_script(
        "const s = document.querySelector('#search-results .search-summary'); return s && /\\d/.test(s.textContent)"))
    found = browser.find_elements(By.CSS_SELECTOR, "#search-results li")
    assert len(found) >= 3, f"searching {word!r} in the {edition.language} edition found {len(found)} pages"

