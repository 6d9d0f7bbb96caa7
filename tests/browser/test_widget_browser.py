"""The widget in a real browser: a docs page on one origin embeds the chat served from another.

Headless Debian Chromium through Playwright. The docs page (``docs/embed-example.html``) is served by
the stdlib on one loopback port, the app on another: a real cross-origin embed. The test clicks the
launcher, asks a question, sees a cited answer, gives a 👍 with a comment, reads it back with
``gpu-advisor feedback --json``, checks that no request left localhost, and saves the README screenshot.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from web_helpers import running, web_app

from ui.feedback import FeedbackStore

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_PAGE = REPO / "docs" / "embed-example.html"
SCREENSHOT = REPO / "docs" / "screenshot.png"
EXAMPLE_APP_URL = "http://127.0.0.1:7860"  # what the example page points at; rewritten to the test's app
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


class _DocsSite:
    """The example docs page on its own loopback origin; the app URL is filled in once known."""

    def __init__(self) -> None:
        self.app_url = EXAMPLE_APP_URL
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                body = EXAMPLE_PAGE.read_text(encoding="utf-8").replace(EXAMPLE_APP_URL, site.app_url).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture(scope="module")
def docs_site() -> Iterator[_DocsSite]:
    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium is missing: apt-get install -y chromium (./dev test installs it)")
    site = _DocsSite()
    thread = threading.Thread(target=site.server.serve_forever, daemon=True)
    thread.start()
    yield site
    site.server.shutdown()
    site.server.server_close()


@pytest.fixture(scope="module")
def app_and_data(docs_site: _DocsSite, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data_dir = tmp_path_factory.mktemp("browser")
    app = web_app(data_dir, GPU_ADVISOR_EMBED_ORIGINS=docs_site.url, GPU_ADVISOR_RATE_LIMIT_PER_MIN=10_000)
    with running(app) as url:
        docs_site.app_url = url
        yield url, data_dir


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def test_docs_page_embeds_the_chat_cross_origin_and_records_a_thumbs_up(
    docs_site: _DocsSite, app_and_data: tuple[str, Path], browser: Any
) -> None:
    app_url, data_dir = app_and_data
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))

    page.goto(docs_site.url)
    assert urlsplit(docs_site.url).port != urlsplit(app_url).port  # two origins
    page.locator("button.gpa-launcher").click()  # inside the widget's shadow root
    chat = page.frame_locator("iframe.gpa-frame")
    chat.locator("#gpa-input textarea").fill("gn7i 是什么 GPU?")
    chat.locator("#gpa-input textarea").press("Enter")

    citation = chat.locator("#gpa-chatbot a", has_text="[1]").first
    citation.wait_for(timeout=60_000)
    assert citation.get_attribute("href").startswith("https://")
    assert "A10" in chat.locator("#gpa-chatbot").inner_text()

    chat.locator("#gpa-comment textarea").fill("清楚，有出处")
    chat.locator('#gpa-chatbot button[aria-label="Like"]').last.click()
    chat.locator("#gpa-feedback-status", has_text="Thanks").wait_for(timeout=30_000)

    [record] = FeedbackStore.in_dir(data_dir).list()
    assert (record.rating, record.comment, record.question) == ("up", "清楚，有出处", "gn7i 是什么 GPU?")
    cli = subprocess.run(
        [sys.executable, "-m", "ui", "feedback", "--json"],
        env={**os.environ, "GPU_ADVISOR_DATA_DIR": str(data_dir)},
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    assert json.loads(cli.stdout)[0]["comment"] == "清楚，有出处"

    hosts = {urlsplit(url).hostname for url in requested if not url.startswith(("data:", "blob:"))}
    assert hosts == {"127.0.0.1"}, f"requests left localhost: {sorted(hosts)}"
    page.close()


def test_chat_page_screenshot_for_the_readme(app_and_data: tuple[str, Path], browser: Any) -> None:
    app_url, _ = app_and_data
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(app_url + "/")
    page.locator("#gpa-input textarea").fill("Qwen2.5-72B 推理, INT4, 32k 上下文, 20 并发, 选什么实例?")
    page.locator("#gpa-input textarea").press("Enter")
    page.locator("#gpa-chatbot a", has_text="[1]").first.wait_for(timeout=60_000)
    page.locator(".gpa-chart").wait_for()
    page.locator("#gpa-table table").wait_for()
    page.wait_for_timeout(500)  # let the last frame settle
    # Show the answer from its start (the question, the tool steps, the recommendation), not its end.
    page.locator("#gpa-chatbot .user-row").last.evaluate("row => row.scrollIntoView({block: 'start'})")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SCREENSHOT), full_page=True)
    assert SCREENSHOT.stat().st_size > 50_000
    assert {urlsplit(url).hostname for url in requested if url.startswith("http")} == {"127.0.0.1"}
    page.close()
