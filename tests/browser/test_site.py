"""The built book, checked in a real headless Chromium: pages load cleanly and launch the right notebook.

Run after the book is built (`make browser` does both). The site is served from _build/html on a
loopback port. A console error fails the test, except a failed load of an off-site resource
(fonts, MathJax or the widget manager from a CDN): CI has no network, readers do.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.support.ui import WebDriverWait

from tools.course import ROOT, notebook_paths, read_notebook, repository_url

SITE = ROOT / "_build" / "html"
NOTEBOOKS = [p.relative_to(ROOT) for p in notebook_paths()]




def _find(binary: str, *candidates: str) -> str:
    for name in (binary, *candidates):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail(f"{binary} is not installed: `apt-get install chromium chromium-driver` (.ci/run does it)")


@pytest.fixture(scope="module")
def site_url() -> Iterator[str]:
    if not (SITE / "index.html").is_file():
        pytest.fail(f"no built book in {SITE}: run `make book` first")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = _find("chromium", "chromium-browser")
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                 "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path=_find("chromedriver"))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


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


def test_index_loads_cleanly(browser: webdriver.Chrome, site_url: str) -> None:
    browser.get(f"{site_url}/index.html")
    WebDriverWait(browser, 30).until(lambda driver: driver.execute_script("return document.readyState") == "complete")
    assert "PyTorch 2.12" in browser.title
    assert console_errors(browser, site_url) == []


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.as_posix())
def test_notebook_page(browser: webdriver.Chrome, site_url: str, notebook: Path) -> None:
    page = notebook.with_suffix(".html").as_posix()
    browser.get(f"{site_url}/{page}")
    assert console_errors(browser, site_url) == [], f"{page} logs console errors"

    outputs = browser.find_elements("css selector", "div.cell_output")
    assert outputs, f"{page} shows no executed outputs"
    source = "".join("".join(c["source"]) for c in read_notebook(ROOT / notebook)["cells"])
    if "plt." in source:
        figures = browser.find_elements("css selector", "div.cell_output img")
        assert figures, f"{page} draws with matplotlib but shows no figure"
        assert all(browser.execute_script("return arguments[0].naturalWidth", img) > 0 for img in figures)

    links = [a.get_attribute("href") or "" for a in browser.find_elements("css selector", "a")]
    repo_path = repository_url().removeprefix("https://github.com/")
    colab = f"https://colab.research.google.com/github/{repo_path}/blob/main/{notebook.as_posix()}"
    assert colab in links, f"{page} has no Colab link to {notebook}"
    binder = [link for link in links if link.startswith("https://mybinder.org/v2/gh/")]
    assert binder and all(repo_path in link and notebook.as_posix() in link for link in binder), (
        f"{page} has no Binder link to {notebook}: {binder}"
    )
