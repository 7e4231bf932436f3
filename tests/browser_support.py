"""What every browser test shares: Debian's Chromium driven by Playwright.

A headless Chromium (Debian's chromium-headless-shell, the old headless
build that Playwright itself drives for headless runs, and about 30% less
CPU than the full browser in its headless mode; /usr/bin/chromium where
only that is installed), through Playwright's sync API (it downloads no
browser of its own), talks to the real service under
gunicorn. The `browser` (one per pytest process: a launch costs about
1.2 s of CPU, and every test has a context of its own) and `page` fixtures are
registered for every test by tests/conftest.py; a test that does not ask for
them starts no browser.

Without Chromium or Playwright the tests are skipped, except when CI is set:
there they fail, so CI never passes by skipping them. CHROMIUM_PATH overrides
the browser's path (point it at a missing file to try the skip path).
"""

import os

import pytest

from harness import ROOT
from tests.system import unavailable

HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM_PATH = os.environ.get(
    "CHROMIUM_PATH", HEADLESS_SHELL if os.path.exists(HEADLESS_SHELL) else "/usr/bin/chromium"
)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-quic",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = ROOT / "test-artifacts"
# The pictures of the pages in test-artifacts/ are taken when PICTURES=1
# (`make pictures`): they are for a person to look at (docs/images/ holds
# copies of some), no test reads them, and in `make test` a full-page
# picture cost a fifth of Chromium's CPU in the dashboard's modules.
PICTURES = os.environ.get("PICTURES", "").strip() not in ("", "0")
TIMEOUT_MS = 15_000  # any single browser wait
VIEWPORT = {"width": 1280, "height": 900}


def _unavailable(reason):
    """Skip, or fail when CI is set: CI must run these tests."""
    unavailable(reason, "the browser tests")


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        _unavailable(f"playwright cannot be imported ({exc}); pip install playwright")
    if not (os.path.isfile(CHROMIUM_PATH) and os.access(CHROMIUM_PATH, os.X_OK)):
        _unavailable(
            f"no Chromium at {CHROMIUM_PATH}: apt-get install -y chromium-headless-shell (or set CHROMIUM_PATH)"
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM_PATH, headless=True, args=CHROMIUM_ARGS, timeout=30_000
        )
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser, **context_options):
    """A page in a fresh browser context (own cache, storage, preflight cache);
    closing the page's context is the caller's job.

    `page.console_lines` collects the console, `page.seen_urls` every request.
    """
    context = browser.new_context(**{"viewport": VIEWPORT, **context_options})
    context.set_default_timeout(TIMEOUT_MS)
    context.set_default_navigation_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.console_lines = []
    page.seen_urls = []
    page.on("console", lambda msg: page.console_lines.append(f"{msg.type}: {msg.text}"))
    page.on("pageerror", lambda exc: page.console_lines.append(f"pageerror: {exc}"))
    page.on("request", lambda request: page.seen_urls.append(request.url))
    return page


def save_picture(page, name, **options):
    """page.screenshot() to test-artifacts/NAME.png, when PICTURES is set."""
    if PICTURES:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), **options)


@pytest.fixture
def page(browser):
    """A fresh page at 1280 x 900, in a context of its own."""
    page = new_page(browser)
    try:
        yield page
    finally:
        page.context.close()
