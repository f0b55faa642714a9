"""Browser tests: keep each phase's report on the test item (for failure screenshots)."""

from __future__ import annotations

import contextlib

import pytest

from .labtools import CHROMIUM_ARGS, Lab, _chromium, _shot


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    return _chromium()


@pytest.fixture(scope="session")
def lab(tmp_path_factory, chromium_path):
    pytest.importorskip("jupyterlab", reason="jupyterlab is not installed")
    server = Lab(tmp_path_factory.mktemp("jupyter-lab"))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser(chromium_path):
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright (Python) is not installed"
    )
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_path, args=CHROMIUM_ARGS, headless=True
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser, lab, request):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    messages: list[str] = []
    page.on("console", lambda m: messages.append(f"[{m.type}] {m.text}"))
    page.on("pageerror", lambda e: messages.append(f"[pageerror] {e}"))
    page.symnb_console = messages
    yield page
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        with contextlib.suppress(Exception):
            _shot(page, f"zz-failure-{request.node.name}")
        print("---- browser console ----\n" + "\n".join(messages[-80:]))
        print("---- jupyter lab log ----\n" + lab.log_tail())
    context.close()
