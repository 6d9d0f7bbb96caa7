"""A tool's input error is stated in the answer's language, through the real faces (shape5, session 21).

Tools raise input errors as typed notes (``tools.errors.input_problem``), so a Chinese answer renders them
from the note catalogue instead of quoting the English message. Domain: BGE-M3 reads at most 8,192 tokens
per sequence (its model card); a VLM request takes at most 256 images (``tools.vlm.MAX_IMAGES``).
``gpu-advisor ask --json`` and ``POST /v1/ask``, and a follow-up that turns a valid question into a bad one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_helpers import ask_api, ask_api_follow_up, ask_cli, ask_cli_follow_up

pytestmark = pytest.mark.slow

Body = dict[str, Any]
# Three English words in a row: an English sentence, not an identifier or a flag.
_ENGLISH = re.compile(r"\b[A-Za-z]{2,}\s+[a-z]{2,}\s+[a-z]{2,}\b")


def _first(body: Body) -> str:
    return next(line for line in body["text"].splitlines() if line.strip())


def _failed(body: Body) -> list[str]:
    errors = [c["error"] for c in body["tool_calls"] if c.get("error")]
    assert errors, f"no tool refused the input: {[c['name'] for c in body['tool_calls']]}"
    return errors


def _zh_max_tokens(body: Body) -> None:
    assert any("8,192" in e for e in _failed(body))
    line = _first(body)
    assert "8,192" in line and "token" in line and not _ENGLISH.search(line), line


def _zh_images(body: Body) -> None:
    assert any("256" in e for e in _failed(body))
    line = _first(body)
    assert "256" in line and "图片" in line and not _ENGLISH.search(line), line


def _en_max_tokens(body: Body) -> None:
    _failed(body)
    assert "reads at most 8,192 tokens per sequence" in _first(body)


CASES: list[tuple[str, str, Callable[[Body], None]]] = [
    ("zh-embedding-too-long", "bge-m3 每条 100 万 token，需要多少显存？", _zh_max_tokens),
    ("zh-vlm-too-many-images", "Qwen2-VL-7B 每个请求 500 张图，要多少显存？", _zh_images),
    ("en-embedding-too-long", "bge-m3 with 1M tokens per document, how much VRAM?", _en_max_tokens),
]
FIRST = "bge-m3 每条文档 1000 token，需要多少显存？"
FOLLOW = "那每条 20 万 token 呢？"


def _follow_up_in_chinese(body: Body) -> None:
    _failed(body)
    line = _first(body)
    assert "131072" in line and "每条文档的 token 数" in line, line  # the media request's bound on doc_tokens


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


def test_cli_follow_up_error_in_chinese(cli_env: dict[str, str], tmp_path: Path) -> None:
    first = ask_cli(cli_env, FIRST)
    _follow_up_in_chinese(ask_cli_follow_up(cli_env, tmp_path, FIRST, first["text"], FOLLOW))


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


def test_api_follow_up_error_in_chinese(client: httpx.Client) -> None:
    _, follow = ask_api_follow_up(client, FIRST, FOLLOW)
    _follow_up_in_chinese(follow)
