"""Answers a person can read, checked on the rendered DOM at laptop (1280×800) and phone (390×844) size.

One conversation per size: a plan, a follow-up, a GPU comparison and a refusal. After each answer the
page must show the answer's first line, no element may stick out of the viewport sideways, numbers and
instance names in tables stay on one line, and every link goes to a source the Answer names. The
widget's launcher must not cover its open panel, and Escape inside the chat or the close button closes
it. The laptop and phone screenshots of the plan answer go to ``docs/`` for the README.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from engine_helpers import shared_kb
from web_helpers import web_settings

from assistant.answer import Answer, Message
from assistant.assistant import build_assistant
from ui.render_visuals import latest_plan, plan_prices

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
PLAN = "Qwen2.5-72B 推理, INT4, 32k 上下文, 20 并发, 选什么实例?"
FOLLOW_UP = "那 40 并发呢?"
COMPARISON = "H800 vs A100 for training?"
REFUSAL = "Llama-3.1-405B inference BF16 on one gn7i instance?"
VIEWPORTS = {"laptop": (1280, 800), "phone": (390, 844)}
SCREENSHOTS = {"laptop": REPO / "docs" / "screenshot.png", "phone": REPO / "docs" / "screenshot-phone.png"}

# Elements sticking out of the viewport sideways, unless a scrolling or clipping ancestor holds them.
_OVERFLOW_JS = """() => {
  const out = [];
  const clips = e => { for (let a = e.parentElement; a; a = a.parentElement) {
    if (['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(a).overflowX)) return true; } return false; };
  for (const e of document.querySelectorAll('body *')) {
    const r = e.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && (r.right > innerWidth + 1 || r.left < -1) && !clips(e))
      out.push(`${e.tagName}.${e.className} ${Math.round(r.left)}..${Math.round(r.right)}`);
  }
  if (document.scrollingElement.scrollWidth > innerWidth + 1) out.push('page scrolls sideways');
  return out;
}"""

# Table cells holding a number or an instance name that are laid out on more than one line.
_WRAPPED_CELLS_JS = """() => {
  const numeric = /^[\\s\\d.,%×/¥~≈—-]+$/;
  const out = [];
  for (const cell of document.querySelectorAll('#gpa-chatbot td, #gpa-chart td')) {
    const label = cell.querySelector('.gpa-k');
    const text = cell.textContent.replace(label ? label.textContent : '', '').replace('⚠', '').trim();
    if (!text || !(numeric.test(text) || /^(★\\s*)?ecs\\.[\\w.-]+$/.test(text))) continue;
    const range = document.createRange();
    const tops = new Set();
    for (const node of cell.childNodes) {
      if (node === label) continue;
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top / 4));
    }
    if (tops.size > 1) out.push(text);
  }
  return out;
}"""

# Where the last answer's first line is, against the chat's scroll box and the viewport.
_ANSWER_START_JS = """() => {
  const marks = document.querySelectorAll('#gpa-chatbot .gpa-answer-start');
  const first = marks[marks.length - 1].parentElement.getBoundingClientRect();
  let box = marks[marks.length - 1].parentElement;
  while (box && !['auto', 'scroll'].includes(getComputedStyle(box).overflowY)) box = box.parentElement;
  const view = box ? box.getBoundingClientRect() : {top: 0, bottom: innerHeight};
  return {top: first.top, line: Math.min(first.height, 40), boxTop: view.top, boxBottom: view.bottom,
          height: innerHeight};
}"""

_LINKS_JS = """() => {
  const marks = document.querySelectorAll('#gpa-chatbot .gpa-answer-start');
  const message = marks[marks.length - 1].closest('.message-row') || marks[marks.length - 1].closest('.message');
  return [...message.querySelectorAll('a[href]')].map(a => ({href: a.getAttribute('href'), text: a.textContent,
    title: a.getAttribute('title') || ''}));
}"""


def _intended_urls(answer: Answer) -> set[str]:
    urls = {url for cite in answer.citations for url in cite.sources}
    plan = latest_plan(answer)
    return urls | (set(plan_prices(plan)) if plan is not None else set())


@pytest.fixture(scope="module")
def intended(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Answer]:
    """The Answers the offline engine gives these questions, computed directly (it is deterministic)."""
    assistant = build_assistant(web_settings(tmp_path_factory.mktemp("direct")), knowledge_base=shared_kb())
    plan = assistant.answer(PLAN, [])
    history = [Message(role="user", content=PLAN), Message(role="assistant", content=plan.text)]
    return {
        PLAN: plan,
        FOLLOW_UP: assistant.answer(FOLLOW_UP, history),
        COMPARISON: assistant.answer(COMPARISON, []),
        REFUSAL: assistant.answer(REFUSAL, []),
    }


def _ask(page: Any, question: str, answers_before: int) -> None:
    page.locator("#gpa-input textarea").fill(question)
    page.locator("#gpa-input textarea").press("Enter")
    page.wait_for_function(
        f"document.querySelectorAll('#gpa-chatbot .gpa-answer-start').length > {answers_before}", timeout=60_000
    )
    page.wait_for_timeout(1_000)  # the page scrolls to the answer's start, repeated for 800 ms


def _check_answer(page: Any, question: str, answer: Answer, size: str) -> None:
    where = f"{size}, {question!r}"
    assert page.evaluate(_OVERFLOW_JS) == [], where
    assert page.evaluate(_WRAPPED_CELLS_JS) == [], where
    start = page.evaluate(_ANSWER_START_JS)
    assert start["boxTop"] - 2 <= start["top"] and start["top"] + start["line"] <= start["boxBottom"] + 2, where
    assert -2 <= start["top"] and start["top"] + start["line"] <= start["height"] + 2, where
    links = page.evaluate(_LINKS_JS)
    intended = {unquote(u) for u in _intended_urls(answer)}
    assert links, where
    for link in links:
        assert unquote(link["href"]) in intended, f"{where}: {link}"
        assert not link["text"].startswith("http"), f"{where}: raw URL shown {link}"
    for n, cite in enumerate(answer.citations, start=1):
        numbered = [link for link in links if link["text"] == f"[{n}]"]
        assert all(unquote(link["href"]) == cite.sources[0] for link in numbered), where
        assert all(cite.doc_title in link["title"] for link in numbered), where


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_answers_read_well_at_laptop_and_phone_size(
    size: str, app_and_data: tuple[str, Path], browser: Any, intended: dict[str, Answer]
) -> None:
    app_url, _ = app_and_data
    width, height = VIEWPORTS[size]
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(app_url + "/")
    for n, question in enumerate((PLAN, FOLLOW_UP, COMPARISON, REFUSAL)):
        _ask(page, question, n)
        _check_answer(page, question, intended[question], size)
        visuals = page.locator("#gpa-chart")
        if question == PLAN:
            assert visuals.locator("table.gpa-sortable").count() == 1
            assert page.locator("#gpa-chatbot table.gpa-opts").count() == 1  # compact, once per answer
            page.screenshot(path=str(SCREENSHOTS[size]))
            _check_sorting(page)
        if question == COMPARISON:
            assert visuals.locator(".gpa-compare", has_text="H800").count() == 1
        if question == REFUSAL:
            assert visuals.locator(".gpa-refusal .gpa-verdict").count() >= 1
    assert SCREENSHOTS[size].stat().st_size > 30_000
    page.close()


def _check_sorting(page: Any) -> None:
    table = page.locator("#gpa-chart table.gpa-sortable")
    header = table.locator("th", has_text="¥")
    header.first.click()
    values = table.locator("tbody tr").evaluate_all(
        "rows => rows.map(r => r.querySelectorAll('td')[[...r.parentNode.parentNode.querySelectorAll('th')]"
        ".findIndex(th => th.getAttribute('aria-sort'))].getAttribute('data-value'))"
    )
    known = [float(v) for v in values if v is not None]
    assert known == sorted(known) and values[: len(known)] == [v for v in values if v is not None]


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_widget_panel_and_launcher_never_overlap_and_escape_inside_closes(
    size: str, docs_site: Any, app_and_data: tuple[str, Path], browser: Any
) -> None:
    width, height = VIEWPORTS[size]
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(docs_site.url)
    assert page.evaluate(_OVERFLOW_JS) == [], "the example page is wider than the screen"
    launcher = page.locator("button.gpa-launcher")
    launcher.click()
    chat = page.frame_locator("iframe.gpa-frame")
    chat.locator("#gpa-input textarea").wait_for(timeout=30_000)
    assert chat.locator("#gpa-header").is_hidden()  # the compact embed layout
    panel = page.locator(".gpa-panel").bounding_box()
    if launcher.is_visible():
        button = launcher.bounding_box()
        overlap_x = min(panel["x"] + panel["width"], button["x"] + button["width"]) - max(panel["x"], button["x"])
        overlap_y = min(panel["y"] + panel["height"], button["y"] + button["height"]) - max(panel["y"], button["y"])
        assert overlap_x <= 0 or overlap_y <= 0, f"launcher {button} overlaps panel {panel}"
    else:
        assert panel["width"] >= width - 1  # the full-screen panel replaces the launcher on a phone
    assert panel["x"] >= 0 and panel["x"] + panel["width"] <= width + 1
    chat.locator("#gpa-input textarea").press("Escape")  # focus inside the iframe
    page.locator(".gpa-panel").wait_for(state="hidden", timeout=5_000)
    assert launcher.is_visible()
    launcher.click()
    page.locator(".gpa-panel .gpa-close").click()  # the close button in the panel's bar, also on a phone
    page.locator(".gpa-panel").wait_for(state="hidden", timeout=5_000)
    page.close()
