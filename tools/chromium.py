"""Debian's headless Chromium, driven by Selenium: the one way the course starts it, for the browser check
(tests/browser/) and for printing the PDFs (tools/editions/pdf.py)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from tools.course import CourseError

if TYPE_CHECKING:
    from selenium import webdriver

# Headless, as root, on a machine whose network reaches no other host: without the background-networking flags
# Chromium keeps trying to reach Google's hosts.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")

# For execute_async_script: calls back once MathJax has typeset the page (at once where the page has no MathJax).
MATHJAX_TYPESET = """
    const done = arguments[arguments.length - 1];
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(() => done(true), () => done(false));
    } else { done(true); }"""


def _which(*names: str) -> str:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    raise CourseError(f"{names[0]} is not installed: `apt-get install chromium chromium-driver` (.ci/run does it)")


def options(profile: Path | None = None, *extra_flags: str) -> webdriver.ChromeOptions:
    """Chromium's options: FLAGS, a profile folder of its own where given, and `extra_flags`."""
    from selenium import webdriver

    chosen = webdriver.ChromeOptions()
    chosen.binary_location = _which("chromium", "chromium-browser")
    for flag in (*FLAGS, *([f"--user-data-dir={profile}"] if profile else []), *extra_flags):
        chosen.add_argument(flag)
    return chosen


def start(chosen: webdriver.ChromeOptions, timeout_seconds: int) -> webdriver.Chrome:
    """Chromium with these options under Debian's chromedriver, pages and scripts given `timeout_seconds`."""
    from selenium import webdriver

    driver = webdriver.Chrome(options=chosen, service=webdriver.ChromeService(executable_path=_which("chromedriver")))
    driver.set_page_load_timeout(timeout_seconds)
    driver.set_script_timeout(timeout_seconds)
    return driver
