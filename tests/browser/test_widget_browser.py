"""The widget in a real browser: a docs page on one origin embeds the chat served from another.

The test clicks the launcher, asks a question, sees a cited answer, gives a 👍 with a comment, reads it
back with ``gpu-advisor feedback --json`` and checks that no request left localhost. Fixtures are in
``conftest.py``; the answer-layout checks and the README screenshots are in ``test_answers_browser.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from ui.feedback import FeedbackStore

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]


def test_docs_page_embeds_the_chat_cross_origin_and_records_a_thumbs_up(
    docs_site: Any, app_and_data: tuple[str, Path], browser: Any
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
