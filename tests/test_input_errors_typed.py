"""Every input error a tool raises is a typed note, so a Chinese answer never quotes it in English.

A ``ToolInputError`` built from a message alone reaches a Chinese answer as English text; built with
``input_problem(code, ...)`` (or with its notes) it renders from ``tools/data/note_texts.yaml`` in either
language. The first test reads the tools' source, so a new bare message fails here, not in a user's answer.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

from tools import capacity, hf_config, lengths, media_memory, training_volume, vlm
from tools.errors import ToolInputError
from tools.hardware_fit import resolve_hardware
from tools.model_search import largest_models_within_budget

ROOT = Path(__file__).resolve().parent.parent


def _bare_raises(path: Path) -> list[int]:
    """Lines that build a ToolInputError from a message only (no notes argument)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "ToolInputError":
            if len(node.args) + len(node.keywords) < 2:
                lines.append(node.lineno)
    return lines


def test_no_tool_raises_an_input_error_without_its_notes() -> None:
    # tools/errors.py keeps one bare fallback: a pydantic complaint of a kind no note states.
    sources = [*(ROOT / "tools").glob("*.py"), *(ROOT / "assistant").glob("toolbox*.py")]
    found = {p.name: _bare_raises(p) for p in sources if p.name != "errors.py"}
    assert {name: lines for name, lines in found.items() if lines} == {}


CALLS: list[tuple[str, Callable[[], object], str]] = [
    ("context", lambda: capacity.concurrent_sequences("Qwen2.5-7B-Instruct", 1, gpu="A10"), "上下文"),
    ("gpus", lambda: resolve_hardware(gpu="A10", gpus=0), "卡数"),
    ("text length", lambda: lengths.text_tokens(0, "tokens"), "文本长度"),
    ("mfu", lambda: training_volume.training_compute("Qwen2.5-7B-Instruct", 1e9, "A100-80GB", 8, mfu=2.0), "MFU"),
    ("budget", lambda: largest_models_within_budget(-5), "预算"),
    ("max tokens", lambda: media_memory.estimate_media_memory({"model": "bge-m3", "seq_tokens": 100_000}), "最多"),
    ("not a vlm", lambda: vlm.estimate_vlm_memory("sdxl"), "视觉语言"),
    ("config", lambda: hf_config.load_config_file("/nonexistent/config.json"), "不存在"),
]


@pytest.mark.parametrize(("case", "call", "zh_word"), CALLS, ids=[c[0] for c in CALLS])
def test_the_error_renders_in_both_languages(case: str, call: Callable[[], object], zh_word: str) -> None:
    with pytest.raises(ToolInputError) as caught:
        call()
    exc = caught.value
    assert exc.notes, case
    assert exc.notes[0].render("en") in str(exc)  # the message is the first note's English text
    assert zh_word in "；".join(n.render("zh") for n in exc.notes)


@pytest.mark.parametrize(
    ("fields", "zh"),
    [
        ({"concurrency": 10**7}, "并发数 不能超过 100000"),
        ({"precision": "fp64"}, "精度 只能是 `fp32`、`bf16`"),
        ({"concurrency": "many"}, "并发数 必须是整数"),
        ({"colour": "red"}, "不认识的参数 colour"),
    ],
)
def test_a_request_field_error_is_typed_and_names_the_field_in_words(fields: dict[str, object], zh: str) -> None:
    from tools.workload import parse_workload

    with pytest.raises(ToolInputError) as caught:
        parse_workload({"model": "qwen2.5-7b", **fields})
    assert caught.value.notes and caught.value.notes[0].render("zh").startswith(zh)
