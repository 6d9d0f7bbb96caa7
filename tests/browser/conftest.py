"""Browser-test fixtures: headless Debian Chromium through Playwright, the app and a docs site on loopback.

The docs page (``docs/embed-example.html``) is served by the stdlib on one loopback port, the app on
another: a real cross-origin embed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from web_helpers import running, web_app

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_PAGE = REPO / "docs" / "embed-example.html"
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
