"""The browser and the served site, shared by every test of this folder (defined in test_site.py)."""

from tests.browser.test_site import browser, site_url  # noqa: F401 (fixtures)
