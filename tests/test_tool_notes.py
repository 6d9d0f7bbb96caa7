"""Typed tool notes: every code renders in both languages, and a Chinese answer carries no English note."""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from typing import Any

import pytest
from engine_helpers import ask, full_text

from tools.notes import Note, NoteValue, note, note_texts, placeholders, render_code

_CJK = re.compile(r"[\u4e00-\u9fff]")
# Three lowercase English words in a row, outside code spans and link targets: English prose in a zh answer.
_EN_RUN = re.compile(r"(?<![A-Za-z0-9])[a-z]{2,}(?:[ ,'-]+[a-z]{2,}){2,}(?![A-Za-z0-9])")
_NOT_PROSE = re.compile(r"`[^`]*`|\]\([^)]*\)|https?://\S+")
# Codes whose Chinese is the same technical name as the English ("DeepSpeed ZeRO-3").
_SAME_IN_BOTH = {"option.zero"}


def _sample(template: str) -> dict[str, NoteValue]:
    """A value for every placeholder, of the type its format spec needs (``{x:.1f}`` a float, ``{x:,}`` an int)."""
    values: dict[str, NoteValue] = {}
    for _, name, spec, _ in string.Formatter().parse(template):
        if not name:
            continue
        if spec and spec[-1] in "f%g":
            values[name] = 0.37
        elif spec:
            values[name] = 12345
        else:
            values[name] = f"<{name}>"
    return values


@pytest.mark.parametrize("code", sorted(note_texts()))
def test_every_code_renders_in_both_languages_with_its_values_filled(code: str) -> None:
    texts = note_texts()[code]
    assert placeholders(texts.en) == placeholders(texts.zh)
    values = _sample(texts.en)
    en, zh = render_code(code, "en", values), render_code(code, "zh", values)
    for text in (en, zh):
        assert "{" not in text and "}" not in text, text
        for name, value in values.items():
            if isinstance(value, str):
                assert value in text, (code, name)
    assert not _CJK.search(en), code
    assert _CJK.search(zh) or code in _SAME_IN_BOTH, code


def test_a_note_keeps_its_figures_and_renders_them_in_either_language() -> None:
    made = note("reject.memory_per_gpu", need=23.456, gpus=2, gpu="A10", usable=21.3)
    assert made.text == "needs 23.5 GiB per GPU on 2x A10 (21.3 GiB usable)"
    assert made.render("zh") == "在 2 张 A10 上每卡需要 23.5 GiB（可用 21.3 GiB）"
    assert Note.model_validate_json(made.model_dump_json()) == made  # JSON readers get code, values and text
    assert note("plan.micro_batch", batch=1, grad_ckpt=True).render("zh").endswith("开")
    # equal notes are shared, but True, 1 and 1.0 are different figures
    assert note("plan.micro_batch", batch=1, grad_ckpt=True) is note("plan.micro_batch", batch=1, grad_ckpt=True)
    assert note("plan.micro_batch", batch=1, grad_ckpt=1).text.endswith("checkpointing 1")


def test_an_unknown_code_or_a_missing_value_fails_loudly() -> None:
    with pytest.raises(KeyError):
        note("no.such.code")
    with pytest.raises(KeyError):
        note("reject.memory_per_gpu", need=1.0)


def _notes_in(value: Any) -> Iterator[Note]:
    """Every note inside a tool result's JSON."""
    if isinstance(value, dict):
        if set(value) == {"code", "values", "text"}:
            yield Note.model_validate(value)
            return
        for item in value.values():
            yield from _notes_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from _notes_in(item)


@pytest.mark.parametrize(
    "question",
    [
        "Qwen2.5-72B 推理，INT4，32k 上下文，20 并发，选什么实例？",
        "Qwen2.5-7B 推理，32k 上下文，8 卡 A10，每卡需要多少显存？",
        "Qwen2.5-7B 全参微调，seq_len 4096，需要多少显存？",
        "SDXL 每小时生成 2000 张 1024x1024 的图，用什么 GPU？",
    ],
)
def test_a_chinese_answer_shows_tool_notes_in_chinese_only(question: str) -> None:
    answer = ask(question)
    assert answer.language == "zh"
    text = full_text(answer)
    notes = [n for call in answer.tool_calls for n in _notes_in(call.result)]
    assert notes, "the answer's tools returned no notes"
    shown = 0
    for n in notes:
        zh = n.render("zh")
        if zh != n.text and len(n.text) > 12:
            assert n.text not in text, n.code
        shown += zh in text
    assert shown, "no tool note reached the answer"
    assert not _EN_RUN.findall(_NOT_PROSE.sub(" ", text))


def test_a_list_of_names_reads_as_identifiers_in_chinese() -> None:
    made = note("plan.region_default", order=["cn-shanghai", "cn-wuhan-lr"])
    assert "from the first of cn-shanghai, cn-wuhan-lr that lists the type" in made.text
    assert "`cn-shanghai`、`cn-wuhan-lr`" in made.render("zh")
    assert made.values == {"order": ["cn-shanghai", "cn-wuhan-lr"]}


def test_input_errors_the_tools_name_are_typed_with_their_figures() -> None:
    from tools.errors import ToolInputError, UnknownNameError
    from tools.models import resolve_model
    from tools.workload import parse_workload

    with pytest.raises(UnknownNameError) as unknown:
        resolve_model("Qwen2.5-70B")
    [typed] = unknown.value.notes
    assert typed.code == "error.unknown_suggest.model" and typed.text == str(unknown.value)
    assert typed.render("zh").startswith("目录里没有“Qwen2.5-70B”这个模型")
    with pytest.raises(ToolInputError) as bound:
        parse_workload({"model": "qwen2.5-7b", "concurrency": 10**7})
    assert [n.render("zh") for n in bound.value.notes] == ["并发数 不能超过 100000"]  # the field in words
    with pytest.raises(ToolInputError) as badly_formed:  # not a region id at all: text only, no guessed code
        parse_workload({"model": "qwen2.5-7b", "region": "bad region"})
    assert not badly_formed.value.notes and "region id" in str(badly_formed.value)


@pytest.mark.parametrize(
    ("question", "chinese"),
    [
        ("Qwen2.5-70B 推理，20 并发，需要什么实例？", "目录里没有“Qwen2.5-70B”这个模型"),
        ("Qwen2.5-7B 推理 部署在 cn-nowhere 选什么实例？", "没有 cn-nowhere 这个地域"),
    ],
)
def test_a_chinese_answer_renders_a_failed_tool_call_from_its_typed_error(question: str, chinese: str) -> None:
    answer = ask(question)
    assert any(call.error for call in answer.tool_calls)
    assert chinese in answer.text
    assert "Unknown model" not in answer.text and "unknown region" not in answer.text
